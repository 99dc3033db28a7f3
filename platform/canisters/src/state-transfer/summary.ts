// What a state holds, in figures two exports can be compared by (decision W24): per canister and
// store the entry count, the CRC-32 the canister checks at its seal and a SHA-256 of the same bytes;
// the ledger's block count and the ICRC-3 hash of its last block (the certified tip).
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { decode } from '@domdao/canister-kit';
import { blockHash, type Block } from '@domdao/canister-ledger';
import { CANISTERS, type CanisterName } from '../api.ts';
import type { CanisterStateExport, EntryText, StateReport, StoreSummary } from './types.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export function summarizeStore(entries: EntryText[]): StoreSummary {
  const sha = createHash('sha256');
  let crc = 0;
  for (const [k, v] of entries) {
    const bytes = Buffer.from(`${k}\n${v}\n`, 'utf8');
    sha.update(bytes);
    crc = crc32(bytes, crc);
  }
  return { count: entries.length, crc32: crc.toString(16).padStart(8, '0'), sha256: sha.digest('hex') };
}

export function summarizeState(exp: CanisterStateExport): StateReport {
  const canisters = Object.fromEntries(
    CANISTERS.map((name) => {
      const c = exp.canisters[name];
      return [
        name,
        {
          version: c.version,
          stores: Object.fromEntries(
            Object.entries(c.stores).map(([store, entries]) => [store, summarizeStore(entries)]),
          ),
        },
      ];
    }),
  ) as StateReport['canisters'];
  const blocks = exp.canisters.ledger.stores.blocks ?? [];
  const last = blocks[blocks.length - 1];
  return {
    canisters,
    ledger: { blocks: blocks.length, tipHash: last ? hex(blockHash(decode<Block>(last[1]))) : null },
  };
}

/** The differences between two reports, one line each (none: they are equal). */
export function compareReports(expected: StateReport, actual: StateReport): string[] {
  const out: string[] = [];
  for (const name of CANISTERS as readonly CanisterName[]) {
    const e = expected.canisters[name];
    const a = actual.canisters[name];
    if (e.version !== a.version) out.push(`${name}: state version ${a.version}, expected ${e.version}`);
    for (const store of new Set([...Object.keys(e.stores), ...Object.keys(a.stores)])) {
      const x = e.stores[store];
      const y = a.stores[store];
      if (!x || !y || x.count !== y.count || x.sha256 !== y.sha256)
        out.push(
          `${name}.${store}: ${y ? `${y.count} entries, sha256 ${y.sha256}` : 'missing'}, expected ${x ? `${x.count} entries, sha256 ${x.sha256}` : 'none'}`,
        );
    }
  }
  if (expected.ledger.blocks !== actual.ledger.blocks || expected.ledger.tipHash !== actual.ledger.tipHash)
    out.push(
      `ledger: ${actual.ledger.blocks} blocks, tip ${actual.ledger.tipHash}, expected ${expected.ledger.blocks} blocks, tip ${expected.ledger.tipHash}`,
    );
  return out;
}
