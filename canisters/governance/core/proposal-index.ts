// Decision W8: filtered proposal lists without reading the history they skip. `proposalIndex` holds,
// per proposal, keys that list it by category and, once it has left `active` (its stored status is
// then final and never changes), by that status and by status and category; and its text's size, so
// a page can stop before decoding a record that would pass the answer's budget (decision W6):
//   t|id → UTF-8 bytes of title and body     c|Category|id → true
//   s|Status|id → true                        x|Status|Category|id → true
// (ids as 20 digits, so keys sort by id). A status in force now is derived from time (decision G6),
// so a status that is not final (Created, Open, Tallied, Approved) can only be the status of an active
// proposal, and a final one is that of an active proposal or of one listed under s|: the candidates
// of every filter are an exact index, the active proposals (few: the scheduler's step reads them all
// already), or both merged newest first. A store kept by a release without the index is indexed by
// the scheduler's step, a bounded number of proposals per step; until done, filters scan as before.
import { u64Key, utf8Length } from '@domdao/canister-kit';
import type { GovernanceStores, ProposalCategory, ProposalRecord, ProposalStatus } from './types.ts';
import { TERMINAL } from './types.ts';

/** `counters` keys: the build's progress (ids below it are indexed) and its end (1: every proposal indexed). */
export const INDEX_NEXT = 'proposal_index_next';
export const INDEX_DONE = 'proposal_index_done';
/** Proposals a scheduler step indexes at most (each is read once; the step's instruction budget also applies). */
export const INDEX_STEP = 200;

const ID_DIGITS = 20;
export const textKey = (id: bigint) => `t|${u64Key(id)}`;
export const categoryKey = (c: ProposalCategory, id?: bigint) => `c|${c}|${id === undefined ? '' : u64Key(id)}`;
export const statusKey = (s: ProposalStatus, id?: bigint) => `s|${s}|${id === undefined ? '' : u64Key(id)}`;
export const bothKey = (s: ProposalStatus, c: ProposalCategory, id?: bigint) =>
  `x|${s}|${c}|${id === undefined ? '' : u64Key(id)}`;

/** UTF-8 bytes of what a list answer carries as text (the W6 budget's measure). */
export const textBytes = (p: Pick<ProposalRecord, 'title' | 'body'>) => utf8Length(p.title) + utf8Length(p.body);

export function proposalIndex(stores: Pick<GovernanceStores, 'proposalIndex' | 'proposals' | 'active' | 'counters'>) {
  const index = stores.proposalIndex;

  /** A new proposal: its size and its category. */
  const created = (p: ProposalRecord): void => {
    index.set(textKey(p.id), textBytes(p));
    index.set(categoryKey(p.category, p.id), true);
  };
  /** A proposal leaves `active`: its stored status is final. */
  const finalised = (p: ProposalRecord): void => {
    index.set(statusKey(p.status, p.id), true);
    index.set(bothKey(p.status, p.category, p.id), true);
  };

  const complete = (): boolean => stores.counters.get(INDEX_DONE) === 1n;

  /** Ids under `prefix`, newest first, from `from` (inclusive). */
  function* ids(prefix: string, from: bigint | undefined): Generator<bigint> {
    const start = from === undefined ? `${prefix}~` : `${prefix}${u64Key(from)}`; // '~' sorts after every digit
    for (const [key] of index.entries({ from: start, reverse: true })) {
      if (!key.startsWith(prefix)) return;
      yield BigInt(key.slice(-ID_DIGITS));
    }
  }
  function* activeIds(from: bigint | undefined): Generator<bigint> {
    for (const [id] of stores.active.entries({ reverse: true, ...(from !== undefined && { from }) })) yield id;
  }
  /** Two descending id streams as one (they never share an id: a proposal leaves `active` when it is listed under s|). */
  function* merged(a: Generator<bigint>, b: Generator<bigint>): Generator<bigint> {
    let x = a.next();
    let y = b.next();
    while (!x.done || !y.done) {
      if (y.done || (!x.done && x.value > y.value)) {
        yield x.value as bigint;
        x = a.next();
      } else {
        yield y.value;
        y = b.next();
      }
    }
  }

  /**
   * The ids that may match a filter, newest first from `from`: every one has the category asked
   * for (if any); active ones must still be checked for the status in force. Undefined while the
   * index is incomplete, or without a filter.
   */
  const candidates = (
    filter: { status?: ProposalStatus; category?: ProposalCategory },
    from: bigint | undefined,
  ): Generator<bigint> | undefined => {
    const { status, category } = filter;
    if ((status === undefined && category === undefined) || !complete()) return undefined;
    if (status === undefined) return ids(categoryKey(category!), from);
    const active = activeIds(from);
    if (!TERMINAL.has(status)) return active;
    return merged(active, category === undefined ? ids(statusKey(status), from) : ids(bothKey(status, category), from));
  };

  /** Stored text bytes of a proposal (undefined if unknown). */
  const size = (id: bigint): number | undefined => index.get(textKey(id)) as number | undefined;

  /**
   * One step of indexing a store kept by a release without the index: at most `INDEX_STEP`
   * proposals, while `more()`; true when every proposal is indexed.
   */
  const buildStep = (nextId: bigint, more: () => boolean): boolean => {
    if (complete()) return true;
    let id = stores.counters.get(INDEX_NEXT) ?? 0n;
    for (let n = 0; n < INDEX_STEP && id < nextId && more(); n++, id++) {
      const p = stores.proposals.get(id);
      if (p === undefined) continue;
      created(p);
      if (!stores.active.has(id)) finalised(p);
    }
    if (id >= nextId) {
      stores.counters.set(INDEX_DONE, 1n);
      stores.counters.delete(INDEX_NEXT);
      return true;
    }
    stores.counters.set(INDEX_NEXT, id);
    return false;
  };

  return {
    created,
    finalised,
    candidates,
    size,
    complete,
    buildStep,
    markComplete: () => stores.counters.set(INDEX_DONE, 1n),
  };
}
