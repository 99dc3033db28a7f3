// node:test reporter for a shared test process (decision R20): one JSON line per file, when the file's
// suite (nesting 0, named by its path, made by scripts/test-batch.mjs) ends, with the counts its own
// process would have printed as `ℹ tests`, `ℹ pass`, `ℹ fail`, … and whether the file passed as a whole
// (a failing hook fails the file without failing a test).
import { noCounts } from './test-jobs.mjs';

export default async function* batchReporter(source) {
  let counts = noCounts();
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (data.nesting === 0) {
      yield `${JSON.stringify({ file: data.name, ok: type === 'test:pass', counts })}\n`;
      counts = noCounts();
      continue;
    }
    if (data.details?.type === 'suite') {
      counts.suites += 1;
      continue;
    }
    counts.tests += 1;
    if (data.skip !== undefined && data.skip !== false) counts.skipped += 1;
    else if (data.todo !== undefined && data.todo !== false) counts.todo += 1;
    else if (type === 'test:pass') counts.pass += 1;
    else if (data.details?.error?.failureType === 'cancelledByParent') counts.cancelled += 1;
    else counts.fail += 1;
  }
}
