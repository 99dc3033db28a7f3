// Follows the governance canister's admin event log (decision V3) into the bridge's event log. The
// cursor is the log itself: the highest governance event id stored for this canister set (decision
// V40: another set's ids, in a database that holds its rows, are another log's). Two instances
// following at once both insert, and the unique (canister_set, source, source_id) keeps one copy, so
// each canister event becomes exactly one bridge event whichever instance copied it.
import { sql } from 'kysely';
import type { CanisterClients } from '@domdao/canisters';
import type { Db } from '../db/schema.ts';
import { governanceEvent } from './governance-events.ts';
import type { EventLog } from './bus.ts';
import { Poller } from './poller.ts';

const PAGE = 100;

export interface GovernanceFollowerOptions {
  db: Db;
  events: EventLog;
  governance: Pick<CanisterClients['governance'], 'list_admin_events'>;
  /** Poll period, ms. */
  pollMs: number;
  log?: { warn(obj: object, msg: string): void };
  /** Told of each successful pass (decision B69). */
  onPass?: () => void;
}

export class GovernanceFollower {
  readonly #o: GovernanceFollowerOptions;
  readonly #poll: Poller;

  constructor(o: GovernanceFollowerOptions) {
    this.#o = o;
    this.#poll = new Poller({
      pass: () => this.#follow(),
      pollMs: o.pollMs,
      events: o.events,
      log: o.log,
      onPass: o.onPass,
      failure: {
        event: 'events.governance_follow_failed',
        message: 'reading the governance admin event log failed; retrying',
      },
    });
  }

  /** Copies every admin event not yet stored; returns how many were new here. */
  follow(): Promise<number> {
    return this.#poll.run();
  }

  async #follow(): Promise<number> {
    const { db, events, governance } = this.#o;
    let copied = 0;
    for (;;) {
      const { rows } = await sql<{
        last: string | null;
      }>`select max(source_id::bigint)::text as last from bridge_events where canister_set = ${events.canisterSet} and source = 'governance'`.execute(
        db,
      );
      const last = rows[0]?.last;
      const page = await governance.list_admin_events(last == null ? undefined : BigInt(last) + 1n, PAGE);
      for (const e of page) {
        const ev = governanceEvent(e);
        // Unknown kinds are stored as such, so the cursor moves past them and nothing is re-read.
        const inserted = ev
          ? await events.publish(ev.type, ev.data, {
              source: 'governance',
              sourceId: String(e.id),
              occurredAt: new Date(Number(e.at / 1_000_000n)),
            })
          : await events.publish('Unknown' as never, { kind: Object.keys(e.kind)[0] } as never, {
              source: 'governance',
              sourceId: String(e.id),
              occurredAt: new Date(Number(e.at / 1_000_000n)),
            });
        if (inserted) copied += 1;
      }
      if (page.length < PAGE || this.#poll.closed) return copied;
    }
  }

  start(): void {
    this.#poll.start();
  }

  close(): Promise<void> {
    return this.#poll.close();
  }
}
