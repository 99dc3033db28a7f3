// An export on disk (decision W24): JSON lines, 0600 (it holds password hashes and tokens, as
// DATA_DIR does, K22). The first line is the header (everything but the entries, and each store's
// count); then one line per entry, [canister, store, key, value], in the export's order. Written to
// a temporary name and renamed, so a file under the final name is always whole.
import { once } from 'node:events';
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CANISTERS, type CanisterName } from '../api.ts';
import { StateTransferRefusal, type CanisterStateExport, type EntryText } from './types.ts';

interface Header extends Omit<CanisterStateExport, 'canisters'> {
  canisters: Record<CanisterName, { version: string; stores: Record<string, number> }>;
}

export async function writeStateExport(file: string, exp: CanisterStateExport): Promise<void> {
  const tmp = `${file}.partial`;
  const out = createWriteStream(tmp, { mode: 0o600 });
  const write = async (line: string) => {
    if (!out.write(line + '\n')) await once(out, 'drain');
  };
  try {
    const header: Header = {
      ...exp,
      canisters: Object.fromEntries(
        CANISTERS.map((c) => [
          c,
          {
            version: exp.canisters[c].version,
            stores: Object.fromEntries(Object.entries(exp.canisters[c].stores).map(([s, e]) => [s, e.length])),
          },
        ]),
      ) as Header['canisters'],
    };
    await write(JSON.stringify(header));
    for (const c of CANISTERS)
      for (const [store, entries] of Object.entries(exp.canisters[c].stores))
        for (const [k, v] of entries) await write(JSON.stringify([c, store, k, v]));
    out.end();
    await once(out, 'finish');
    const fd = await open(tmp, 'r');
    await fd.sync();
    await fd.close();
    renameSync(tmp, file);
  } catch (e) {
    out.destroy();
    rmSync(tmp, { force: true });
    throw e;
  }
}

export async function readStateExport(file: string): Promise<CanisterStateExport> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let header: Header | undefined;
  let exp: CanisterStateExport | undefined;
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!header) {
      header = JSON.parse(line) as Header;
      if (header.format !== 'domdao-canister-state')
        throw new StateTransferRefusal(`${file} is not a canister state export`);
      exp = {
        ...header,
        canisters: Object.fromEntries(
          CANISTERS.map((c) => [
            c,
            {
              version: header!.canisters[c].version,
              stores: Object.fromEntries(Object.keys(header!.canisters[c].stores).map((s) => [s, [] as EntryText[]])),
            },
          ]),
        ) as CanisterStateExport['canisters'],
      };
      continue;
    }
    const [c, store, k, v] = JSON.parse(line) as [CanisterName, string, string, string];
    const entries = exp!.canisters[c]?.stores[store];
    if (!entries || typeof k !== 'string' || typeof v !== 'string')
      throw new StateTransferRefusal(`${file} line ${n} names no store of the header`);
    entries.push([k, v]);
  }
  if (!header || !exp) throw new StateTransferRefusal(`${file} is empty`);
  for (const c of CANISTERS)
    for (const [store, count] of Object.entries(header.canisters[c].stores))
      if (exp.canisters[c].stores[store]!.length !== count)
        throw new StateTransferRefusal(
          `${file} is cut short: ${c}.${store} has ${exp.canisters[c].stores[store]!.length} of its ${count} entries`,
        );
  return exp;
}
