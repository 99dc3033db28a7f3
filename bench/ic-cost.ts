// docs/ic-cost.md's tables (decision W21) from the cost surveys of `npm run bench wasm` at two or more
// sizes (BENCH_WASM_COST=<file.json>): each method's instructions at 10,000 members, measured or
// extrapolated, priced with the IC's fees for a 13-node application subnet.
//   node --import tsx bench/ic-cost.ts cost-300.json cost-1000.json cost-3000.json > tables.md
//   node --import tsx bench/ic-cost.ts --merge docs/ic-cost.md only-300.json only-1000.json
// rewrites only the rows (and the whole-state table) those files hold in the doc (BENCH_WASM_COST_ONLY, W32).
import { readFileSync, writeFileSync } from 'node:fs';
import type { CostCall, CostFile } from './cost-types.ts';
import { pagedAt, transferTable } from './ic-cost-transfer.ts';
import {
  cyclesOf,
  EXECUTION_OVERHEAD,
  fitAt,
  type Fit,
  millions,
  money,
  QUERY_LIMIT,
  ROUND_INSTRUCTIONS,
  SLICE_INSTRUCTIONS,
  usd,
} from './ic-cost-model.ts';

const HOW = { real: 'real', callee: 'real, as a callee', probe: 'smallest' } as const;

/** The calls the issue names: a join, a vote, a transfer, a contribution, the proposal list. */
export const HEADLINE = [
  'user create_account',
  'user verify_email',
  'membership mint_membership_registered',
  'user upgrade_membership_to_active',
  'governance create_proposal',
  'governance cast_vote',
  'ledger icrc1_transfer',
  'campaign contribute',
  'governance list_proposals',
  'governance list_votes_page',
  'ledger icrc1_symbol',
];

export function costTables(files: CostFile[]): string {
  const sizes = files.map((f) => f.members);
  const byKey = new Map<string, Array<[number, CostCall]>>();
  for (const f of files)
    for (const c of f.calls)
      byKey.set(`${c.canister} ${c.method}`, [...(byKey.get(`${c.canister} ${c.method}`) ?? []), [f.members, c]]);
  const out: string[] = [];
  const headline: string[] = [];
  let canister = '';
  for (const [key, list] of [...byKey].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const last = list.reduce((m, x) => (x[0] > m[0] ? x : m))[1];
    if (last.canister !== canister) {
      canister = last.canister;
      out.push(
        '',
        `### ${canister}`,
        '',
        '| method | kind | called with → outcome | instructions (M) | fit | chain (M, messages) | cycles | USD a call | USD per 1,000 | a round |',
        '| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
      );
    }
    const paged = pagedAt(files, last.canister, last.method);
    const own: Fit =
      paged === undefined
        ? fitAt(list.map(([n, c]) => [n, Number(c.instructions)]))
        : { value: paged, fit: 'per entry' };
    const chain = paged === undefined ? fitAt(list.map(([n, c]) => [n, Number(c.chainInstructions)])) : own;
    const cycles = cyclesOf(last, chain.value);
    const charged = cycles > 0;
    // Past a slice, one message is spread over several rounds (deterministic time slicing).
    const rounds =
      own.value > SLICE_INSTRUCTIONS
        ? `1 in ${Math.ceil(own.value / SLICE_INSTRUCTIONS)} rounds (sliced)`
        : String(Math.floor(ROUND_INSTRUCTIONS / (own.value + EXECUTION_OVERHEAD)));
    const ofLimit = `${((own.value / QUERY_LIMIT) * 100).toFixed(2)} % of the query limit${own.value > QUERY_LIMIT ? ': over it, the IC traps it' : ''}`;
    const perRound = last.kind === 'update' ? rounds : charged ? `${rounds} (${ofLimit})` : `— (${ofLimit})`;
    const row = `| ${last.kind} | ${HOW[last.how]} → ${last.outcome.replace(/\|/g, '/')} | ${millions(own.value)} | ${own.fit} | ${last.messages > 1 ? `${millions(chain.value)} (${last.messages})` : '—'} | ${charged ? `${millions(cycles)} M` : '0'} | ${money(usd(cycles))} | ${money(usd(cycles) * 1000)} | ${perRound} |`;
    if (HEADLINE.includes(key)) headline[HEADLINE.indexOf(key)] = `| ${key.replace(' ', '.')} ${row}`;
    out.push(
      `| ${key.split(' ')[1]} | ${last.kind} | ${HOW[last.how]} → ${last.outcome.replace(/\|/g, '/')} | ${millions(own.value)} | ${own.fit} | ${last.messages > 1 ? `${millions(chain.value)} (${last.messages})` : '—'} | ${charged ? `${millions(cycles)} M` : '0'} | ${money(usd(cycles))} | ${money(usd(cycles) * 1000)} | ${perRound} |`,
    );
  }
  const head =
    '| kind | called with → outcome | instructions (M) | fit | chain (M, messages) | cycles | USD a call | USD per 1,000 | a round |';
  return [
    `| method ${head}`,
    '| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
    ...headline.filter(Boolean),
    '',
    '<!-- every method -->',
    `Sizes surveyed: ${sizes.map((n) => n.toLocaleString('en')).join(', ')} members (each with as many votes on one proposal).`,
    ...out,
    ...transferTable(files),
  ].join('\n');
}

const TRANSFER_START = '<!-- state transfer -->';
const TRANSFER_END = '<!-- /state transfer -->';

/**
 * The doc with the generated method rows put in place of its rows of the same canister and method, and
 * its whole-state table replaced; everything else kept (a run of a few methods leaves the others alone).
 */
export function mergeInto(doc: string, generated: string): string {
  const lines = doc.split('\n');
  const heading = (canister: string) => lines.indexOf(`### ${canister}`);
  let canister = '';
  for (const line of generated.split('\n')) {
    if (line.startsWith('### ')) canister = line.slice(4);
    const method = canister && /^\| ([a-z0-9_]+) \| (update|query) \|/.exec(line)?.[1];
    if (!method) continue;
    const start = heading(canister);
    if (start < 0) throw new Error(`the doc has no table for ${canister}`);
    let at = start + 1;
    while (at < lines.length && !lines[at]!.startsWith(`| ${method} |`) && !lines[at]!.startsWith('#')) at++;
    if (at >= lines.length || !lines[at]!.startsWith(`| ${method} |`))
      throw new Error(`the doc's ${canister} table has no row for ${method}`);
    lines[at] = line;
  }
  let out = lines.join('\n');
  const g = [generated.indexOf(TRANSFER_START), generated.indexOf(TRANSFER_END)];
  if (g[0]! >= 0) {
    const block = generated.slice(g[0], g[1]! + TRANSFER_END.length);
    const d = [out.indexOf(TRANSFER_START), out.indexOf(TRANSFER_END)];
    if (d[0]! < 0 || d[1]! < 0)
      throw new Error(`the doc has no ${TRANSFER_START} … ${TRANSFER_END} block for the whole-state table`);
    out = out.slice(0, d[0]) + block + out.slice(d[1]! + TRANSFER_END.length);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const merge = args[0] === '--merge' ? args[1] : undefined;
  const files = args.slice(merge ? 2 : 0).map((p) => JSON.parse(readFileSync(p, 'utf8')) as CostFile);
  if (merge) writeFileSync(merge, mergeInto(readFileSync(merge, 'utf8'), costTables(files)));
  else console.log(costTables(files));
}
