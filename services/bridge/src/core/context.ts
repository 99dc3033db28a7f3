// What every route of the bridge shares, built once by buildApp.
import type { CanisterClients } from '@domdao/canisters';
import type { NotificationClient } from '@domdao/notification-client';
import type { BridgeConfig } from '../config.ts';
import type { Db } from './db/schema.ts';
import type { Throttle } from './auth/brute-force.ts';
import type { SessionManager } from './auth/sessions.ts';
import type { BridgeKeys } from './keys.ts';
import type { Outbox } from './outbox/queue.ts';
import type { EventLog } from './events/bus.ts';
import type { AuditRecorder } from './audit/log.ts';
import type { Passwords } from './auth/passwords.ts';

/** Opens the HPKE-sealed registration fields the client encrypted to the bridge's key (and seals one as a client would). */
export interface SealedFieldOpener {
  publicKey: string;
  open(field: 'email' | 'name' | 'dob', wire: string): Promise<string>;
  /** Seals a field as a browser does: the canonical address registration stores (decision B82), a page's plain-text answers (decision B87). */
  seal(field: 'email' | 'name' | 'dob', plaintext: string): Promise<string>;
}

export interface BridgeContext {
  config: BridgeConfig;
  db: Db;
  keys: BridgeKeys;
  sessions: SessionManager;
  throttle: Throttle;
  canisters: CanisterClients;
  notifier: NotificationClient;
  opener: SealedFieldOpener;
  /** Cross-system operations (decisions B20–B23): enqueue in the DB transaction, run after the commit. */
  outbox: Outbox;
  frontendOrigins: ReadonlySet<string>;
  /** The in-bridge event log: flows publish what happened (MemberVerified, MembershipActivated) in their transaction. */
  events: EventLog;
  /** Security events: one log line and one audit_log row each (decision B61). */
  audit: AuditRecorder;
  /** Password hashing (decision B5). */
  passwords: Passwords;
  /** Wall clock, ms (tests move it). */
  now(): number;
}
