// The audit seam (decisions B61–B65): features record security events through `AuditRecorder` (passed
// in their options); each event is one JSON log line and one row of the append-only audit_log. Admins
// read the rows (GET /api/admin/audit); the retention job (retention.ts) deletes old ones in batches.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { sql, type Transaction } from 'kysely';
import type { Database, Db } from '../db/schema.ts';
import { clientClass } from './client-class.ts';
import type { AuditEvent } from './events.ts';

export type AuditOutcome = 'success' | 'failure' | 'denied';
export type AuditDetail = Record<string, string | number | boolean | null>;

/** Who acted: a user id, or `anonymous` (no session), `api-token` (X-API-Token), or `system` (start-up, jobs, the outbox). */
export const ANONYMOUS = 'anonymous';
export const SYSTEM = 'system';
/** The holder of X-API-Token (operator automation): a credential, not a user (decision B61). */
export const API_TOKEN_ACTOR = 'api-token';

export interface AuditEntry {
  event: AuditEvent;
  /** The acting user's id; `anonymous` when absent. */
  actor?: string | undefined;
  /** The user the event is about, when another than the actor (a role's grantee, a failed sign-in's account). */
  subject?: string | null | undefined;
  outcome: AuditOutcome;
  /** Small, non-personal facts: codes, counts, role names. Never an email, name, birth date, password, token or session id. */
  detail?: AuditDetail;
  /** Outside a request: the request that started the work (an outbox operation's), if known. */
  requestId?: string | undefined;
}

export interface AuditRecorder {
  /**
   * Records one event: the log line (on `req.log` when there is a request, so its request id is
   * bound) and the row, inside `trx` when given (the row then commits with the change it audits).
   */
  record(req: FastifyRequest | undefined, entry: AuditEntry, trx?: Transaction<Database>): Promise<void>;
}

/**
 * Detail keys that name personal data or a credential (decision B63): refused, whatever the value.
 * A value that looks like an email address is refused too. A refusal is a programming error.
 */
const FORBIDDEN_KEY = /(^|_)(e?mail|name|dob|birth|password|secret|token|session_id|cookie|ip|address)($|_)/;
const EMAIL_LIKE = /[^\s@]+@[^\s@]+/;
export function assertNoPersonalData(detail: AuditDetail): void {
  for (const [k, v] of Object.entries(detail)) {
    if (FORBIDDEN_KEY.test(k))
      throw new Error(`audit detail ${k}: personal data or a credential never enters the audit log (decision B63)`);
    if (typeof v === 'string' && (v.length > 200 || EMAIL_LIKE.test(v)))
      throw new Error(`audit detail ${k}: not a short, non-personal value (decision B63)`);
  }
}

export interface AuditQuery {
  event?: AuditEvent;
  actor?: string;
  /** ISO-8601, inclusive. */
  from?: string;
  /** ISO-8601, exclusive. */
  to?: string;
  /** Rows with a smaller id (the previous page's `next_cursor`). */
  cursor?: string;
  limit: number;
}

export interface AuditRow {
  id: string;
  at: string;
  event: string;
  actor: string;
  subject: string | null;
  request_id: string | null;
  client: string;
  outcome: AuditOutcome;
  detail: Record<string, unknown>;
}

export class AuditLog implements AuditRecorder {
  readonly #db: Db;
  readonly #log: FastifyBaseLogger;
  readonly #now: () => number;

  constructor(o: { db: Db; log: FastifyBaseLogger; now: () => number }) {
    this.#db = o.db;
    this.#log = o.log;
    this.#now = o.now;
  }

  async record(req: FastifyRequest | undefined, entry: AuditEntry, trx?: Transaction<Database>): Promise<void> {
    const detail = entry.detail ?? {};
    assertNoPersonalData(detail);
    const actor = entry.actor ?? ANONYMOUS;
    const subject = entry.subject ?? null;
    const client = req ? clientClass(req.ip) : 'internal';
    const requestId = req ? req.id : (entry.requestId ?? null);
    // The line first: it is the copy that survives a database that refuses the row.
    const line = {
      ...detail,
      event: entry.event,
      audit: true,
      actor,
      ...(subject !== null && { subject }),
      client,
      outcome: entry.outcome,
      // A request's logger binds request_id already; outside one the line names it itself.
      ...(!req && { request_id: requestId }),
    };
    const log = req?.log ?? this.#log;
    if (entry.outcome === 'success') log.info(line, entry.event);
    else log.warn(line, entry.event);
    const row = {
      at: new Date(this.#now()),
      event: entry.event,
      actor,
      subject,
      request_id: requestId,
      client,
      outcome: entry.outcome,
      detail: JSON.stringify(detail),
    };
    if (trx) {
      await trx.insertInto('audit_log').values(row).execute();
      return;
    }
    try {
      await this.#db.insertInto('audit_log').values(row).execute();
    } catch (e) {
      // Decision B64: a refused row never changes the answer of the request it audits; the line above stands.
      log.error(
        { event: 'audit.write_failed', audited: entry.event, err: e instanceof Error ? e.message : String(e) },
        'an audit row was not stored',
      );
    }
  }

  /** Newest first; `next_cursor` when an older page exists. */
  async list(q: AuditQuery): Promise<{ items: AuditRow[]; next_cursor: string | null }> {
    let query = this.#db
      .selectFrom('audit_log')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(q.limit + 1);
    if (q.event !== undefined) query = query.where('event', '=', q.event);
    if (q.actor !== undefined) query = query.where('actor', '=', q.actor);
    if (q.from !== undefined) query = query.where('at', '>=', new Date(q.from));
    if (q.to !== undefined) query = query.where('at', '<', new Date(q.to));
    if (q.cursor !== undefined) query = query.where('id', '<', q.cursor);
    const rows = await query.execute();
    const page = rows.slice(0, q.limit);
    return {
      items: page.map((r) => ({
        id: String(r.id),
        at: new Date(r.at).toISOString(),
        event: r.event,
        actor: r.actor,
        subject: r.subject,
        request_id: r.request_id,
        client: r.client,
        outcome: r.outcome,
        detail: typeof r.detail === 'string' ? (JSON.parse(r.detail) as Record<string, unknown>) : r.detail,
      })),
      next_cursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
    };
  }

  /**
   * Decisions B65, B98: deletes rows older than `before`, at most `batch` per transaction, until none is
   * left, through audit_log_purge: the one way past the append-only trigger, which also keeps every row
   * the server's clock says is within the retention floor, whatever `before` is.
   */
  async purge(before: Date, batch: number): Promise<{ deleted: number; batches: number }> {
    let deleted = 0;
    let batches = 0;
    for (;;) {
      const r = await sql<{ n: number }>`select audit_log_purge(${before}, ${batch}) as n`.execute(this.#db);
      const n = Number(r.rows[0]!.n);
      if (n === 0) break;
      batches += 1;
      deleted += n;
      if (n < batch) break;
    }
    return { deleted, batches };
  }
}
