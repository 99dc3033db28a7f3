// Moving a canister's whole state in and out, the same on every host (decisions K23, W22): an export a
// page at a time, and an import that a controller makes only into a canister that has taken no update
// call since it was installed, in chunks, closed by a seal that checks every store's count and
// checksum against the manifest given at the start. Until sealed, the canister refuses other update
// calls and its timers do nothing (the host asks `blocking()`); once sealed it never imports again.
import { decode, encode } from '../codec.ts';
import type { CallContext } from '../call.ts';
import { Err, Ok, type Result } from '../result.ts';
import { compareKeys, type Store, type StoreKey } from '../store.ts';
import { utf8Length } from '../reply-budget.ts';
import {
  crc32Entry,
  EXPORT_INSTRUCTION_BUDGET,
  EXPORT_PAGE_CHARS,
  EXPORT_REPLY_COST_PER_BYTE,
  MAX_CHUNK_CHARS,
  MAX_CHUNK_ENTRIES,
  MAX_EXPORT_ENTRIES,
  stateVersion,
  type EntryText,
} from './format.ts';

/**
 * fresh: installed, no update call since (importable); importing: an import has begun; sealed: an
 * import completed; live: in use. A canister with no record (installed before K23) counts as live.
 */
export type TransferStatus = 'fresh' | 'importing' | 'sealed' | 'live';

export interface StoreManifest {
  name: string;
  count: bigint;
  crc32: number;
}
export interface ImportManifest {
  version: string;
  stores: StoreManifest[];
}
export type ImportStep =
  { Begin: ImportManifest } | { Chunk: { store: string; entries: EntryText[] } } | { Seal: null };
export interface ImportProgress {
  status: TransferStatus;
  /** Entries imported so far, over every store. */
  imported: bigint;
}
export interface StatusReply {
  status: TransferStatus;
  version: string;
  stores: Array<{ name: string; count: bigint }>;
}
export interface ExportArgs {
  store: string;
  /** The key (its JSON) after which the page starts; none for the first page. */
  after?: string;
  limit?: number;
}
export interface ExportPage {
  entries: EntryText[];
  /** Present when the store may hold more: the key to pass as `after`. */
  next?: string;
}

/** What the transfer keeps about itself (in its own store: never exported, never cleared). */
export interface TransferRecord {
  status: TransferStatus;
  manifest?: ImportManifest;
  progress?: Record<string, { count: bigint; crc32: number; last?: string }>;
}

export interface TransferHost {
  /** Whether `caller` controls this canister (ic0.is_controller on the IC). */
  isController(caller: string): boolean;
  /**
   * Instructions the current message has run so far, where the host counts them (the IC's
   * performance_counter, as G20's HostServices.instructions); absent on the embedded host, which has
   * no per-message limit: there MAX_EXPORT_ENTRIES and EXPORT_PAGE_CHARS alone bound a page.
   */
  instructions?(): bigint;
  /** After Begin emptied the stores: state the host derives from them goes too (the ledger's encoded blocks). */
  cleared?(): void;
  /** After a successful seal: the host rebuilds what it derives (the ledger's certified tip). */
  sealed?(): void;
  /** A structured line for the canister's log (decision K25): every refusal writes one (ic0.debug_print on the IC). */
  log?(line: TransferLogLine): void;
}

/** A refusal of the transfer's methods, as the canister logs it (decision K25). */
export interface TransferLogLine {
  event: 'state_status.refused' | 'state_export.refused' | 'state_import.refused';
  caller: string;
  /** The import's step (Begin, Chunk, Seal), or the store an export asked for. */
  step?: string;
  /** The transfer's status when it refused. */
  status: TransferStatus;
  reason: string;
}

export const REFUSALS = {
  notController: 'only a controller of this canister may export or import its state',
  live: 'this canister is not empty: it has taken update calls since it was installed, so it takes no state import',
  sealed: "this canister's state import is sealed: it takes no further import",
  notBegun: 'no state import has begun on this canister: begin one with its manifest first',
} as const;

export function stateTransfer(
  stores: Record<string, Store<StoreKey, unknown>>,
  own: Store<string, TransferRecord>,
  host: TransferHost,
) {
  const names = Object.keys(stores);
  const version = stateVersion(names);
  const record = (): TransferRecord => own.get('transfer') ?? { status: 'live' };
  const save = (r: TransferRecord) => own.set('transfer', r);
  const storeOf = (name: string) => (Object.hasOwn(stores, name) ? stores[name] : undefined);
  const refused = <T>(
    event: TransferLogLine['event'],
    ctx: CallContext,
    step: string | undefined,
    result: Result<T, string>,
  ): Result<T, string> => {
    if ('Err' in result)
      host.log?.({
        event,
        caller: ctx.caller,
        ...(step !== undefined && { step }),
        status: record().status,
        reason: result.Err,
      });
    return result;
  };

  function begin(m: ImportManifest): Result<ImportProgress, string> {
    if (m.version !== version)
      return Err(
        `this canister's state version is ${version}, the export's is ${m.version}: export and import with the same release`,
      );
    const listed = m.stores.map((s) => s.name);
    if (listed.length !== names.length || listed.some((n, i) => n !== names[i]))
      return Err(
        `the manifest must list this canister's stores in order (${names.join(', ')}), it lists ${listed.join(', ')}`,
      );
    for (const store of Object.values(stores)) for (const [k] of [...store.entries()]) store.delete(k);
    host.cleared?.();
    save({
      status: 'importing',
      manifest: m,
      progress: Object.fromEntries(names.map((n) => [n, { count: 0n, crc32: 0 }])),
    });
    return Ok({ status: 'importing', imported: 0n });
  }

  function chunk(r: TransferRecord, name: string, entries: EntryText[]): Result<ImportProgress, string> {
    const store = storeOf(name);
    if (!store) return Err(`this canister has no store ${name}`);
    const chars = entries.reduce((n, [k, v]) => n + k.length + v.length, 0);
    if (entries.length > MAX_CHUNK_ENTRIES || chars > MAX_CHUNK_CHARS)
      return Err(
        `a chunk holds at most ${MAX_CHUNK_ENTRIES} entries and ${MAX_CHUNK_CHARS} characters of key and value text, this one ${entries.length} and ${chars}`,
      );
    const p = { ...r.progress![name]! };
    let last = p.last === undefined ? undefined : decode<StoreKey>(p.last);
    const decoded: Array<[StoreKey, unknown]> = [];
    for (const entry of entries) {
      let key: StoreKey;
      let value: unknown;
      try {
        key = decode<StoreKey>(entry[0]);
        value = decode(entry[1]);
      } catch {
        return Err(`an entry of store ${name} is not the codec's JSON`);
      }
      if (!['string', 'bigint', 'number'].includes(typeof key))
        return Err(`a key of store ${name} is not a string or a number`);
      if (last !== undefined && (typeof last !== typeof key || compareKeys(last, key) >= 0))
        return Err(`the entries of store ${name} must come in ascending key order, each after the last one imported`);
      last = key;
      decoded.push([key, value]);
      p.crc32 = crc32Entry(p.crc32, entry);
    }
    for (const [k, v] of decoded) store.set(k, v);
    p.count += BigInt(entries.length);
    if (entries.length > 0) p.last = entries[entries.length - 1]![0];
    const progress = { ...r.progress!, [name]: p };
    save({ ...r, progress });
    return Ok({ status: 'importing', imported: Object.values(progress).reduce((n, x) => n + x.count, 0n) });
  }

  function seal(r: TransferRecord): Result<ImportProgress, string> {
    for (const m of r.manifest!.stores) {
      const p = r.progress![m.name]!;
      const held = BigInt(storeOf(m.name)!.size);
      if (p.count !== m.count || held !== m.count || p.crc32 !== m.crc32)
        return Err(
          `store ${m.name} holds ${held} entries (${p.count} imported, CRC-32 ${p.crc32}), the manifest says ${m.count} with CRC-32 ${m.crc32}: begin the import again`,
        );
    }
    save({ status: 'sealed' });
    host.sealed?.();
    return Ok({ status: 'sealed', imported: r.manifest!.stores.reduce((n, s) => n + s.count, 0n) });
  }

  return {
    version,
    /** At install: importable until the first update call. */
    installed(): void {
      save({ status: 'fresh' });
    },
    status: (): TransferStatus => record().status,
    /** Whether an import under way holds the canister: other update calls and timers wait for the seal. */
    blocking: (): boolean => record().status === 'importing',
    /** An update call other than the transfer's: a fresh canister is in use from now on. */
    touched(): void {
      if (record().status === 'fresh') save({ status: 'live' });
    },

    /** Decision K25: a controller's only, like the export: it tells the transfer's status and every store's size. Others get a trap (no Result in its Candid type). */
    state_status(ctx: CallContext): StatusReply {
      if (!host.isController(ctx.caller)) {
        refused('state_status.refused', ctx, undefined, Err(REFUSALS.notController));
        throw new Error(REFUSALS.notController);
      }
      return {
        status: record().status,
        version,
        stores: names.map((name) => ({ name, count: BigInt(stores[name]!.size) })),
      };
    },

    state_export(ctx: CallContext, args: ExportArgs): Result<ExportPage, string> {
      return refused('state_export.refused', ctx, args.store, exportPage(ctx, args));
    },

    state_import(ctx: CallContext, step: ImportStep): Result<ImportProgress, string> {
      return refused(
        'state_import.refused',
        ctx,
        'Begin' in step ? 'Begin' : 'Chunk' in step ? `Chunk ${step.Chunk.store}` : 'Seal',
        importStep(ctx, step),
      );
    },
  };

  function exportPage(ctx: CallContext, args: ExportArgs): Result<ExportPage, string> {
    if (!host.isController(ctx.caller)) return Err(REFUSALS.notController);
    const store = storeOf(args.store);
    if (!store) return Err(`this canister has no store ${args.store}`);
    const limit = Math.max(1, Math.min(args.limit ?? MAX_EXPORT_ENTRIES, MAX_EXPORT_ENTRIES));
    let after: StoreKey | undefined;
    try {
      after = args.after === undefined ? undefined : decode<StoreKey>(args.after);
    } catch {
      return Err('after is not the JSON of a key');
    }
    const entries: EntryText[] = [];
    let chars = 0;
    let cut = false;
    // Decision W33: the page's cost so far and its reply's encoding, where the host counts instructions.
    let replyBytes = 0n;
    const over = (bytes: bigint) =>
      host.instructions !== undefined &&
      host.instructions() + bytes * EXPORT_REPLY_COST_PER_BYTE > EXPORT_INSTRUCTION_BUDGET;
    // maxStoredBytes (W6): the IC's store stops before decoding what would pass the page; the embedded one ignores it.
    const range = { limit: limit + 1, maxStoredBytes: EXPORT_PAGE_CHARS, ...(after !== undefined && { from: after }) };
    for (const [k, v] of store.entries(range)) {
      if (after !== undefined && compareKeys(k, after) === 0) continue;
      const entry: EntryText = [encode(k), encode(v)];
      chars += entry[0].length + entry[1].length;
      const bytes = host.instructions === undefined ? 0n : BigInt(textBytes(entry[0]) + textBytes(entry[1]));
      if (entries.length >= limit || (entries.length > 0 && (chars > EXPORT_PAGE_CHARS || over(replyBytes + bytes)))) {
        cut = true;
        break;
      }
      entries.push(entry);
      replyBytes += bytes;
      // Reading the next entry costs its decoding: not when the page is already at its budget.
      if (entries.length < limit && over(replyBytes)) {
        cut = true;
        break;
      }
    }
    // A page the stored-bytes budget ended early (the IC's store) may leave entries: then the key after says so.
    const next = entries.length > 0 && (cut || hasAfter(store, entries));
    return Ok({ entries, ...(next && { next: entries[entries.length - 1]![0] }) });
  }

  function importStep(ctx: CallContext, step: ImportStep): Result<ImportProgress, string> {
    if (!host.isController(ctx.caller)) return Err(REFUSALS.notController);
    const r = record();
    if (r.status === 'live') return Err(REFUSALS.live);
    if (r.status === 'sealed') return Err(REFUSALS.sealed);
    if ('Begin' in step) return begin(step.Begin);
    if (r.status !== 'importing') return Err(REFUSALS.notBegun);
    if ('Chunk' in step) return chunk(r, step.Chunk.store, step.Chunk.entries);
    return seal(r);
  }
}

const NON_ASCII = /[\u0080-\uffff]/;
/**
 * UTF-8 bytes of `s`. utf8Length's loop costs about 11,000 instructions a character in QuickJS (a
 * quarter of a page's cost on the wasm); the regular expression runs natively, and the codec's JSON
 * of a key or value is mostly ASCII.
 */
const textBytes = (s: string): number => (NON_ASCII.test(s) ? utf8Length(s) : s.length);

/** Whether the store holds a key after the page's last. */
function hasAfter(store: Store<StoreKey, unknown>, entries: EntryText[]): boolean {
  const last = decode<StoreKey>(entries[entries.length - 1]![0]);
  let n = 0;
  for (const [k] of store.entries({ from: last, limit: 2 })) if (n++ > 0 || compareKeys(k, last) !== 0) return true;
  return false;
}

export type StateTransfer = ReturnType<typeof stateTransfer>;
