// The bridge's tables as Kysely sees them (db/migrations creates them, one set for PostgreSQL and PGlite).
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface UsersTable {
  id: string;
  principal: string;
  /** Blind index: HMAC-SHA-256 of the normalised email under BLIND_INDEX_KEY. */
  email_index: Uint8Array;
  /** The client's HPKE ciphertexts, as received: personal data stays encrypted at rest. */
  email_encrypted: string;
  name_encrypted: string;
  dob_encrypted: string;
  password_hash: string;
  is_minor: boolean;
  roles: string[];
  email_verified_at: Timestamp | null;
  kyc_status: ColumnType<'none' | 'approved' | 'rejected', 'none' | 'approved' | 'rejected' | undefined, 'none' | 'approved' | 'rejected'>;
  kyc_reference: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface SessionsTable {
  /** SHA-256 of the session id: the id itself is never stored. */
  id_hash: Uint8Array;
  user_id: string;
  /** AES-256-GCM sealed JSON of what the session shows (email, principal). */
  data: string;
  roles: string[];
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface LoginFailuresTable {
  key: string;
  failures: number;
  window_started_at: Timestamp;
}

export interface WebhookEventsTable {
  event_id: string;
  type: string;
  outcome: string;
  received_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface PaymentsTable {
  id: Generated<string>;
  event_id: string;
  user_id: string | null;
  payment_id: string;
  amount_minor: string;
  currency: string;
  status: 'applied' | 'escrow';
  reason: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface PasswordResetsTable {
  /** SHA-256 of the emailed token: the token itself is never stored. */
  token_hash: Uint8Array;
  user_id: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** The in-bridge event log (decision V1): governance admin events and the bridge's own, one order. */
export interface BridgeEventsTable {
  seq: ColumnType<string, never, never>;
  type: string;
  data: ColumnType<unknown, string, never>;
  source: string;
  source_id: string;
  occurred_at: Timestamp;
  recorded_at: ColumnType<Date, Date | string | undefined, never>;
}

/** Each durable subscriber's position in bridge_events (decision V2). */
export interface EventCursorsTable {
  subscriber: string;
  last_seq: ColumnType<string, string | number | undefined, string | number>;
  failures: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface Database {
  bridge_events: BridgeEventsTable;
  event_cursors: EventCursorsTable;
  password_resets: PasswordResetsTable;
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  webhook_events: WebhookEventsTable;
  payments: PaymentsTable;
}
