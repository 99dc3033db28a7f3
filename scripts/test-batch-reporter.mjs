// node:test reporter for a shared test process (decision R20): one JSON line per file, when the file's
// suite (nesting 0, named by its path, made by scripts/test-batch.mjs) ends, with the counts its own
// process would have printed as `ℹ tests`, `ℹ pass`, `ℹ fail`, … and whether the file passed as a whole
// (a failing hook fails the file without failing a test), with the first failing hook's error: Node 22
// and later print that only in the summary at the end, which a process that has to be ended never writes.
import { noCounts } from './test-jobs.mjs';

/** `suite: message` of a hook's failure, on one line. */
function hookProblem(data) {
  const error = data.details?.error;
  if (error?.failureType !== 'hookFailed') return undefined;
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause ?? error.message);
  return `${data.name}: ${cause.split('\n')[0].slice(0, 300)}`;
}

export default async function* batchReporter(source) {
  let counts = noCounts();
  let problem;
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (type === 'test:fail') problem ??= hookProblem(data);
    if (data.nesting === 0) {
      yield `${JSON.stringify({ file: data.name, ok: type === 'test:pass', counts, ...(problem && { problem }) })}\n`;
      counts = noCounts();
      problem = undefined;
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
