// `npm run migrate -- --from DATA_DIR --to-database URL` (decisions P22, P23, B113, B114): moves a stopped
// `npm start` data directory to PostgreSQL and the deployed IC canisters named by the IC_* settings.
// Checks first (the source stopped and at this release's schema level, the target database empty, the
// IC_* settings present, the canisters empty and of this interface): each refusal is one sentence, exit 2,
// nothing changed. Then the database: the schema by the bridge's migrations, the rows by PGlite's pg_dump,
// the canister-set row rebound, verified per table, all in one transaction; then the canisters' state,
// verified per store and by the ledger's tip hash; the database is committed last. A mismatch: exit 1.
import { performance } from 'node:perf_hooks';
import { Refusal } from './migrate/refusal.ts';
import { checkSourceLevel, dumpRows, openSource, type Source } from './migrate/source.ts';
import {
  checkTargetEmpty,
  commit,
  makeSchema,
  openTarget,
  rebindCanisterSet,
  restorable,
  restoreRows,
  rollback,
  serverVersion,
  type Target,
} from './migrate/target.ts';
import { compareDatabases, databaseSums, REBOUND_COLUMNS, type Query } from './migrate/checksums.ts';
import { icTargetFromEnv } from './migrate/canisters.ts';
import type { CanisterStep } from './migrate/canister-step.ts';
import { reportText, type MigrationReport } from './migrate/report.ts';
import { cliLog } from './cli-log.ts';

const log = cliLog('migrate');

const USAGE = 'usage: npm run migrate -- --from DATA_DIR --to-database URL [--json] [--keep-embedded-canisters]';

interface Options {
  from: string;
  to: string;
  json: boolean;
  keepEmbedded: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { from: '', to: '', json: false, keepEmbedded: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Refusal(`${a} needs a value (${USAGE})`);
      return v;
    };
    if (a === '--from') o.from = value();
    else if (a === '--to-database') o.to = value();
    else if (a === '--json') o.json = true;
    else if (a === '--keep-embedded-canisters') o.keepEmbedded = true;
    else throw new Refusal(`unknown option ${a} (${USAGE})`);
  }
  if (!o.from) throw new Refusal(`--from DATA_DIR is required: the data directory of the stopped npm start (${USAGE})`);
  if (!o.to) throw new Refusal(`--to-database URL is required: the new, empty PostgreSQL database (${USAGE})`);
  return o;
}

const redact = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const times: Record<string, number> = {};
  let mark = started;
  const lap = (step: string) => {
    const now = performance.now();
    times[step] = Math.round(now - mark);
    mark = now;
  };
  const o = parseArgs(argv);
  // Decision B114: with --keep-embedded-canisters only the database moves (embedded canisters on PostgreSQL).
  const ic = o.keepEmbedded ? undefined : icTargetFromEnv(env);
  let step: CanisterStep | undefined;
  // Loaded only for IC canisters: --keep-embedded-canisters needs none of the state transfer.
  if (ic)
    step = await (
      await import('./migrate/canister-step.ts')
    ).canisterStep(ic.target, (line) => process.stderr.write(`migrate: ${line}\n`));
  // The target first: its checks are cheap, and opening the source's database is not.
  const target: Target = await openTarget(o.to);
  let source: Source | undefined;
  try {
    await checkTargetEmpty(target);
    source = await openSource(o.from);
    const level = await checkSourceLevel(source.lite);
    await step?.check(source.dir);
    lap('check');

    const dump = await dumpRows(source.lite);
    const lite = source.lite;
    const liteQuery: Query = async <R>(text: string) => (await lite.query<R>(text)).rows;
    const sourceSums = await databaseSums(liteQuery);
    lap('dump');

    const t = target;
    await makeSchema(t);
    await restoreRows(t, await restorable(t, dump));
    const rebound = ic ? await rebindCanisterSet(t, ic.set) : null;
    lap('restore');

    const targetQuery: Query = async <R>(text: string) => (await t.pool.query(text)).rows as R[];
    const targetSums = await databaseSums(targetQuery);
    const compared = compareDatabases(sourceSums, targetSums);
    let unbound = 0;
    if (ic)
      for (const table of Object.keys(REBOUND_COLUMNS).filter((x) => x !== 'bridge_canister_set'))
        unbound += Number(
          (
            await t.pool.query<{ n: string }>(`select count(*)::text as n from ${table} where canister_set <> $1`, [
              ic.set.id,
            ])
          ).rows[0]!.n,
        );
    lap('verify_database');

    const report: MigrationReport = {
      ok: true,
      from: source.dir,
      to_database: redact(o.to),
      target_server: await serverVersion(t),
      schema_migrations: level.length,
      canister_set: rebound,
      database: { ...compared, unbound_rows: unbound },
      canisters: null,
      times_ms: times,
      problems: [],
    };
    const bad = compared.tables.filter((x) => !x.ok).map((x) => `table ${x.table}`);
    bad.push(...compared.sequences.filter((x) => !x.ok).map((x) => `sequence ${x.sequence}`));
    if (unbound > 0) bad.push(`${unbound} rows still name another canister set`);
    if (bad.length === 0 && step) {
      report.canisters = await step.transfer(source.dir);
      lap('canisters');
      bad.push(...report.canisters.stores.filter((s) => !s.ok).map((s) => `canister store ${s.canister}.${s.store}`));
      if (!report.canisters.ledger_tip.ok) bad.push('the ledger tip hash');
    }
    report.problems = bad;
    report.ok = bad.length === 0;
    // Test-only (decision R52): the crash point between the canisters' seal and the database's commit.
    if (env.MIGRATE_TEST_PAUSE === 'before-commit') {
      process.stderr.write('PAUSED before-commit\n');
      await new Promise(() => undefined);
    }
    if (report.ok) await commit(t);
    else await rollback(t);
    lap('commit');
    times.total = Math.round(performance.now() - started);
    process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
    if (!report.ok)
      process.stderr.write(
        `migrate: the copy does not match its source (${bad.join(', ')}): the database was rolled back and is empty${report.canisters ? '; the canisters hold the imported state: reinstall them (npm run deploy on new canisters) before migrating again' : ''}\n`,
      );
    return report.ok ? 0 : 1;
  } catch (e) {
    await rollback(target);
    throw e;
  } finally {
    await target.close();
    await source?.close();
  }
}

let code: number;
try {
  code = await main(process.argv.slice(2), process.env);
} catch (e) {
  if (e instanceof Refusal) {
    log.refused(e.message);
    code = 2;
  } else {
    log.failed(`${e instanceof Error ? e.message : String(e)} (the target database was rolled back)`);
    code = 1;
  }
}
// Whatever a library left open (an agent, a pool), the command is done.
process.exit(code);
