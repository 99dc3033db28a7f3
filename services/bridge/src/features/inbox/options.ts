// What the inbox feature is given by the app (it imports no other feature, decision S-rule).
import type { AuditRecorder } from '../../core/audit/log.ts';
import type { FastifyRequest } from 'fastify';
import type { CanisterClients } from '@domdao/canisters';
import type { NotificationClient } from '@domdao/notification-client';
import type { Session } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import type { EventLog } from '../../core/events/bus.ts';
import type { JobRunner } from '../../core/jobs/runner.ts';

export interface InboxOptions {
  db: Db;
  notifier: NotificationClient;
  events: EventLog;
  jobs: JobRunner;
  membership: CanisterClients['membership'];
  governance: CanisterClients['governance'];
  /** The governance canister as the member (for "has this member voted?"). */
  governanceAs(member: { user_id: string; principal: string }): Promise<CanisterClients['governance']>;
  /** Opens a member's sealed email or name (registration ciphertexts). */
  openField(field: 'email' | 'name', sealed: string): Promise<string>;
  /** Cross-site rule, then a signed-in user (401 otherwise). */
  requireSession(req: FastifyRequest): Promise<Session>;
  /** The session behind the cookie, if any (pages). */
  currentSession(req: FastifyRequest): Promise<Session | undefined>;
  /** Unsubscribe token keys: the current first, then the previous one while rotating. */
  signingSecrets: Uint8Array[];
  tokenLifetimeMs: number;
  /** Unsubscribes are audited (decision B61). */
  audit: AuditRecorder;
  /** https base of links in email (decision N3). */
  linkBase: string;
  /** The bridge's own public URL (its pages). */
  publicUrl: string;
  brandDomain: string;
  digestConcurrency: number;
  now(): number;
}
