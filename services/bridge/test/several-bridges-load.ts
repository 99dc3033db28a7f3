// The bounded load of several-bridges.test.ts's kill test (decision B111): each member, one request
// after another as a person's browser would, votes on every proposal, contributes to the campaign and
// sends DOM, all through the edge; after `killAfter` acknowledged operations one instance is killed.
// A request the edge answers 502/503/504 (or 429), or that fails on the wire, is sent again (the same
// Idempotency-Key for money, so the retry cannot pay twice): what counts is what was acknowledged.
import { call, type Answer } from './bridge-cluster.ts';

export interface LoadMember {
  jar: { cookie?: string };
  principal: string;
  user_id: string;
  /** Whom this member's transfers go to. */
  to: string;
}

export interface LoadResult {
  /** Votes answered 200 (or AlreadyVoted to a retry: the first attempt's vote stands). */
  votes: Array<{ proposal: string; principal: string }>;
  /** Amounts (e8s, each distinct) of the contributions answered 201. */
  contributions: bigint[];
  /** Ids of the transfers answered 201 (or replayed). */
  transfers: string[];
  /** Operations whose last answer was neither (none expected). */
  refused: string[];
  /** Acknowledged operations when the instance was killed. */
  killedAt: number;
  /** Requests sent again after a lost answer. */
  retried: number;
}

const RETRIES = 6;
/** The edge's answers for an instance gone (502–504) or its own rate limit (429, nothing reached a bridge). */
const sendAgain = (status: number) => status === 429 || status === 502 || status === 503 || status === 504;

export async function runLoad(o: {
  base: string;
  members: LoadMember[];
  proposals: string[];
  campaign: string;
  killAfter: number;
  kill: () => void;
}): Promise<LoadResult> {
  const r: LoadResult = { votes: [], contributions: [], transfers: [], refused: [], killedAt: 0, retried: 0 };
  let acknowledged = 0;
  const acked = () => {
    acknowledged++;
    if (acknowledged === o.killAfter) {
      r.killedAt = acknowledged;
      o.kill();
    }
  };
  /** Sends until an answer that is not the edge's "instance gone"; the answer and whether it was a retry. */
  const send = async (
    path: string,
    body: unknown,
    m: LoadMember,
    headers: Record<string, string> = {},
  ): Promise<{ a: Answer | undefined; retried: boolean }> => {
    let a: Answer | undefined;
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      if (attempt > 0) {
        r.retried++;
        await new Promise((res) => setTimeout(res, a?.status === 429 ? 1000 : 300));
      }
      a = await call(o.base, path, { body, jar: { ...m.jar }, headers }).catch(() => undefined);
      if (a && !sendAgain(a.status)) return { a, retried: attempt > 0 };
    }
    return { a, retried: true };
  };
  const worker = async (m: LoadMember, i: number) => {
    for (const [j, proposal] of o.proposals.entries()) {
      const v = await send('/api/governance/vote', { proposal_id: proposal, vote: j % 2 ? 'No' : 'Yes' }, m);
      if (v.a?.status === 200 || (v.retried && v.a?.status === 409 && /AlreadyVoted/.test(v.a.body?.error ?? ''))) {
        r.votes.push({ proposal, principal: m.principal });
        acked();
      } else r.refused.push(`vote ${proposal} by ${i}: ${v.a?.status} ${v.a?.text.slice(0, 200)}`);
      // Distinct amounts name each operation on the ledger and in the campaign.
      const key = `load-${i}-${j}`;
      if (j % 2 === 0) {
        const amount = 1_000_000n + BigInt(i * 100 + j);
        const c = await send(`/api/campaigns/${o.campaign}/contributions`, { amount: { dom_e8s: String(amount) } }, m, {
          'idempotency-key': key,
        });
        if (c.a?.status === 201) {
          r.contributions.push(amount);
          acked();
        } else r.refused.push(`contribution ${key}: ${c.a?.status} ${c.a?.text.slice(0, 200)}`);
      } else {
        const amount = 2_000_000n + BigInt(i * 100 + j);
        const t = await send('/api/me/transfers', { to: m.to, amount_e8s: String(amount) }, m, {
          'idempotency-key': key,
        });
        if ((t.a?.status === 201 || t.a?.status === 202) && typeof t.a.body?.id === 'string') {
          r.transfers.push(t.a.body.id);
          acked();
        } else r.refused.push(`transfer ${key}: ${t.a?.status} ${t.a?.text.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(o.members.map(worker));
  return r;
}
