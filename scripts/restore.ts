// `npm run restore -- --from DIR` (decisions R39, R40): DATA_DIR put back as the backup in DIR holds it,
// refused (exit 2, one sentence, nothing changed) for a running platform or a damaged or incomplete backup.
import { restoreDataDir } from './backup/restore.ts';
import { Refusal } from './backup/refusal.ts';
import { cliLog } from './cli-log.ts';

const USAGE = 'usage: npm run restore -- --from DIR [--data-dir DIR]';

try {
  const argv = process.argv.slice(2);
  let from: string | undefined;
  let dataDir = process.env.DATA_DIR ?? '.data/bridge';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    if ((a === '--from' || a === '--data-dir') && (v === undefined || v.startsWith('--')))
      throw new Refusal(`${a} needs a value (${USAGE})`);
    if (a === '--from') from = argv[++i];
    else if (a === '--data-dir') dataDir = argv[++i]!;
    else throw new Refusal(`unknown option ${a} (${USAGE})`);
  }
  if (!from) throw new Refusal(`--from DIR is required: the backup \`npm run backup -- --to DIR\` wrote (${USAGE})`);
  restoreDataDir(from, dataDir, (l) => console.log(l));
} catch (e) {
  const log = cliLog('restore');
  if (e instanceof Refusal) {
    log.refused(e.message);
    process.exit(2);
  }
  log.failed((e as Error).message);
  process.exit(1);
}
