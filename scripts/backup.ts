// `npm run backup` (decisions R39–R41, W26, W27): `-- --to DIR` makes a backup of DATA_DIR (the embedded
// platform: its database, canisters and keys), with the platform running or not; `-- --ic take|list|restore`
// works the canister snapshots of the six canisters on an IC network. PostgreSQL is pg_dump's
// (docs/operations/backup-and-restore.md). Exit 2 and one sentence for bad input, nothing changed.
import { backupDataDir } from './backup/data-dir.ts';
import { icBackup } from './backup/ic.ts';
import { Refusal } from './backup/refusal.ts';
import { cliLog } from './cli-log.ts';

const USAGE =
  'usage: npm run backup -- --to DIR [--data-dir DIR] | --ic take [--out FILE] [--replace-oldest] | --ic list | --ic restore [--from FILE]';

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (argv[0] === '--ic') return icBackup(argv.slice(1), env, (l) => console.log(l));
  let to: string | undefined;
  let dataDir = env.DATA_DIR ?? '.data/bridge';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    if ((a === '--to' || a === '--data-dir') && (v === undefined || v.startsWith('--')))
      throw new Refusal(`${a} needs a value (${USAGE})`);
    if (a === '--to') to = argv[++i];
    else if (a === '--data-dir') dataDir = argv[++i]!;
    else throw new Refusal(`unknown option ${a} (${USAGE})`);
  }
  if (!to) throw new Refusal(`--to DIR is required: the new directory the backup is written to (${USAGE})`);
  const m = await backupDataDir(dataDir, to, (l) => console.log(l));
  console.log(
    `backup of ${m.data_dir} written to ${to}: ${m.files.length} files, database ${m.database}, canisters ${m.canisters}${m.canister_seq !== undefined ? ` (at update ${m.canister_seq})` : ''}`,
  );
}

try {
  await main(process.argv.slice(2), process.env);
} catch (e) {
  const log = cliLog('backup');
  if (e instanceof Refusal) {
    log.refused(e.message);
    process.exit(2);
  }
  const message = (e as Error).message;
  log.failed(/Reject text: (.*)/.exec(message)?.[1] ?? message);
  process.exit(1);
}
