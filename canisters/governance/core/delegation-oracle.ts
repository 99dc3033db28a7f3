// The reference model of delegated counting (decisions G29–G31), exported by the front door so the property tests on
// both hosts share one oracle: each member's ballot on a closed proposal, from the delegations fixed when its window
// opened and the direct votes: their own vote, else the first direct voter along their chain (at most MAX_CHAIN_HOPS
// hops, a cycle ends it), else none.
import { MAX_CHAIN_HOPS } from './delegation.ts';
import type { ProposalCategory, Vote } from './types.ts';

/** `delegations`: `member|scope` → delegate, scope a category or `All`. */
export function expectedBallots(
  delegations: Map<string, string>,
  direct: Map<string, Vote>,
  category: ProposalCategory,
  members: string[],
): Map<string, { vote: Vote; delegate?: string }> {
  const out = new Map<string, { vote: Vote; delegate?: string }>();
  const of = (m: string) => delegations.get(`${m}|${category}`) ?? delegations.get(`${m}|All`);
  for (const m of members) {
    const own = direct.get(m);
    if (own) {
      out.set(m, { vote: own });
      continue;
    }
    const seen = new Set([m]);
    let cur = m;
    for (let hop = 0; hop < MAX_CHAIN_HOPS; hop++) {
      const d = of(cur);
      if (d === undefined || seen.has(d)) break;
      const v = direct.get(d);
      if (v) {
        out.set(m, { vote: v, delegate: d });
        break;
      }
      seen.add(d);
      cur = d;
    }
  }
  return out;
}
