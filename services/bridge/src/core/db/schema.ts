// The bridge's tables as Kysely sees them (db/migrations creates them, one set for PostgreSQL and PGlite).
import type { ColumnType, Generated, Kysely } from 'kysely';

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
  kyc_status: ColumnType<
    'none' | 'approved' | 'rejected',
    'none' | 'approved' | 'rejected' | undefined,
    'none' | 'approved' | 'rejected'
  >;
  kyc_reference: string | null;
  /** SHA-256 of the live verification token (decision B25); null once verified. */
  verification_token_hash: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  /** When the live verification token expires; an unverified registration expires with it (decision B26). */
  verification_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  /** The name the member chose (decision F22), unique ignoring case; null = the default is shown. */
  display_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** The chosen name's look-alike key (decision B91), unique; null with display_name. */
  display_name_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** The friendly default derived from the principal (identity/display-names.ts), stored so a search finds it. */
  default_name: string;
  /** Keyed index of the registration name's words (decision B106); null until filled for accounts made before it. */
  name_index: ColumnType<Uint8Array[] | null, Uint8Array[] | null | undefined, Uint8Array[] | null>;
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
  status: 'pending' | 'applied' | 'escrow';
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
  /** The canister set the row was written for (decisions B100, V40); '' = written before sets were recorded, adopted at a start. */
  canister_set: ColumnType<string, string, never>;
}

/** Each durable subscriber's position in bridge_events (decision V2). */
export interface EventCursorsTable {
  subscriber: string;
  last_seq: ColumnType<string, string | number | undefined, string | number>;
  failures: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** One row per scheduled job: who holds its lease (decision V17). */
export interface JobsTable {
  name: string;
  lease_owner: string | null;
  lease_until: Timestamp | null;
}

/** One row per run of a job, unique per (job, slot) (decisions V16, V18). */
export interface JobRunsTable {
  id: Generated<string>;
  job: string;
  slot: string;
  trigger: 'schedule' | 'manual';
  status: 'running' | 'succeeded' | 'skipped' | 'failed';
  attempt: ColumnType<number, number | undefined, number>;
  owner: string;
  scheduled_for: Timestamp;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  retry_at: Timestamp | null;
  detail: ColumnType<unknown, string | null | undefined, string | null>;
  error: string | null;
  recorded_at: ColumnType<Date, Date | string | undefined, never>;
}

/** Summary cache (spec 2 AI resources): one per proposal, valid while the body hash matches and the TTL lasts. */
export interface AiSummariesTable {
  proposal_id: string;
  body_sha256: string;
  summary: string;
  model: string;
  created_at: Timestamp;
}

export type DigestFrequency = 'daily' | 'weekly' | 'none';

/** Spec 3 "User digest preference" (decisions N4–N6); a member without a row has `none`. */
export interface DigestPreferencesTable {
  user_id: string;
  digest_frequency: ColumnType<DigestFrequency, DigestFrequency | undefined, DigestFrequency>;
  /** Opted in to vote-closing reminders (decision N16). */
  vote_reminders: ColumnType<boolean, boolean | undefined, boolean>;
  /** When the member last moved from `none` to a frequency: the first digest starts here. */
  opted_in_at: Timestamp | null;
  last_digest_sent_at: Timestamp | null;
  updated_at: Timestamp;
}

/** The activity feed (decision N7): what members care about, for everyone, Active members or one user. */
export interface ActivityItemsTable {
  id: Generated<string>;
  /** Producer key (e.g. `governance:42`): a repeat insert is ignored. */
  source_key: string;
  audience: 'all' | 'active' | 'user';
  user_id: string | null;
  category: string;
  title: string;
  body: string | null;
  deep_link: string | null;
  created_at: Timestamp;
  /** The proposal the item is about (migration 071). */
  proposal_id: ColumnType<string | null, string | bigint | null | undefined, string | null>;
  /** The voting deadline the item speaks of: readers word it relative and in their zone (decision N29). */
  closes_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** A call to vote: hidden from a member whose ballot on `proposal_id` is in (decision N27). */
  reminder: ColumnType<boolean, boolean | undefined, boolean>;
}

/** The outbox of cross-system operations (decisions B20–B23). */
export interface OutboxTable {
  id: Generated<string>;
  operation: string;
  op_id: string;
  aggregate: string;
  payload: ColumnType<unknown, string, string>;
  state: ColumnType<'pending' | 'done' | 'compensated', 'pending' | undefined, 'pending' | 'done' | 'compensated'>;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  result: ColumnType<unknown, string | null | undefined, string | null>;
  lease_token: string | null;
  lease_until: Timestamp | null;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The canister set the row was written for (decisions B100, V40); '' = written before sets were recorded, adopted at a start. */
  canister_set: ColumnType<string, string, never>;
}

/** One member email under its idempotency key (decisions N13–N14): sent, or failed and retried. */
export interface EmailDeliveriesTable {
  key: string;
  template: string;
  user_id: string | null;
  /** The bridge event it answers (the retry rebuilds the email from it); null for a request's own email. */
  event_seq: ColumnType<string | null, string | null | undefined, string | null>;
  status: 'sent' | 'failed';
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  next_attempt_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The audit log (decisions B61–B63): appended, never updated; the retention job deletes old rows. */
export interface AuditLogTable {
  id: Generated<string>;
  at: Timestamp;
  event: string;
  /** A user id, `anonymous` or `system`. */
  actor: string;
  /** The user the event is about, when another than the actor. */
  subject: string | null;
  request_id: string | null;
  /** loopback, private, public, or internal (no request). */
  client: string;
  outcome: 'success' | 'failure' | 'denied';
  detail: ColumnType<Record<string, unknown>, string, never>;
}

export interface SecretFingerprintsTable {
  name: string;
  fingerprint: string;
  seen_at: Timestamp;
}

/** A member's DOM transfer, recorded before its ledger call (decisions B75, L41). */
export interface WalletTransfersTable {
  id: Generated<string>;
  user_id: string;
  idempotency_key: string;
  request_hash: string;
  from_principal: string;
  to_principal: string;
  /** numeric: read as a decimal string. */
  amount_e8s: ColumnType<string, string, never>;
  fee_e8s: ColumnType<string, string, never>;
  memo: ColumnType<Uint8Array, Uint8Array, never>;
  created_at_time: ColumnType<string, string, never>;
  state: ColumnType<'pending' | 'done' | 'failed', 'pending' | undefined, 'done' | 'failed'>;
  block_index: ColumnType<string | null, never, string | null>;
  error_code: ColumnType<string | null, never, string | null>;
  error_message: ColumnType<string | null, never, string | null>;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Timestamp;
}

/** One ledger block as the ledger follower read it (decision B76); accounts in ICRC-1 textual form. */
export interface WalletLedgerBlocksTable {
  block_index: ColumnType<string, string, never>;
  btype: string;
  ts: ColumnType<string, string, never>;
  from_account: string | null;
  to_account: string | null;
  spender_account: string | null;
  amount_e8s: ColumnType<string, string, never>;
  fee_e8s: ColumnType<string, string, never>;
  memo: Uint8Array | null;
  /** The canister set the row was written for (decisions B100, V40); '' = written before sets were recorded, adopted at a start. */
  canister_set: ColumnType<string, string, never>;
}

/** (account, block) for every account that sent or received in a block (decision B76). */
export interface WalletAccountBlocksTable {
  account: string;
  block_index: ColumnType<string, string, never>;
  /** The canister set the row was written for (decisions B100, V40); '' = written before sets were recorded, adopted at a start. */
  canister_set: ColumnType<string, string, never>;
}

/** How far the ledger follower has read (decision B76). */
export interface WalletLedgerCursorTable {
  id: string;
  next_block: ColumnType<string, string, string>;
  skipped_blocks: ColumnType<string, string | undefined, string>;
  updated_at: Timestamp;
  /** The canister set the row was written for (decisions B100, V40); '' = written before sets were recorded, adopted at a start. */
  canister_set: ColumnType<string, string, never>;
  /** The ledger canister the index was read from (decision B103). */
  ledger_id: ColumnType<string, string, string>;
}

/** The canister set this database belongs to (decision B100): one row, written at the first start. */
export interface CanisterSetTable {
  id: ColumnType<number, never, never>;
  set_id: string;
  mode: 'embedded' | 'ic';
  description: ColumnType<unknown, string, never>;
  recorded_at: ColumnType<Date, Date, never>;
  /** Embedded canisters on PostgreSQL: the bridge that holds them now (decision B101); null otherwise. */
  holder: ColumnType<unknown, string | null | undefined, string | null>;
  /** Decision B109: name → fingerprint of the secrets the rows are bound to; null until a bridge of this release started. */
  key_fingerprints: ColumnType<Record<string, string> | null, string | null | undefined, string>;
}

/** A member's statement as a delegate (decision B108): one a member. */
export interface DelegateStatementsTable {
  user_id: string;
  principal: string;
  statement: string;
  updated_at: Timestamp;
}

export interface Database {
  delegate_statements: DelegateStatementsTable;
  bridge_canister_set: CanisterSetTable;
  wallet_transfers: WalletTransfersTable;
  wallet_ledger_blocks: WalletLedgerBlocksTable;
  wallet_account_blocks: WalletAccountBlocksTable;
  wallet_ledger_cursor: WalletLedgerCursorTable;
  audit_log: AuditLogTable;
  secret_fingerprints: SecretFingerprintsTable;
  email_deliveries: EmailDeliveriesTable;
  bridge_outbox: OutboxTable;
  digest_preferences: DigestPreferencesTable;
  activity_items: ActivityItemsTable;
  ai_summaries: AiSummariesTable;
  jobs: JobsTable;
  job_runs: JobRunsTable;
  bridge_events: BridgeEventsTable;
  event_cursors: EventCursorsTable;
  password_resets: PasswordResetsTable;
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  webhook_events: WebhookEventsTable;
  payments: PaymentsTable;
}

/** The bridge's database handle: Kysely over these tables. */
export type Db = Kysely<Database>;
