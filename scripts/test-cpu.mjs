// Preloaded by scripts/test.mjs into each file's process (decision R17): when that process exits it
// writes the CPU seconds (user + system) it used together with every descendant it waited for (Node's
// test runner waits for the file's own process, which reaps the servers it started) to the path in
// TEST_CPU_FILE. A file killed by the watchdog writes nothing and its CPU is reported as unknown.
// scripts/test-batch.mjs reads the same figure (cpuSeconds) at each file's start and end (decision R20).
import { readFileSync, writeFileSync } from 'node:fs';

/** CPU seconds of this process and of every child it has reaped (/proc/self/stat's cutime and cstime). */
export function cpuSeconds() {
  const self = process.resourceUsage();
  let children = 0;
  try {
    // /proc/self/stat fields 16 and 17 (cutime, cstime) in clock ticks, 100 a second on Linux.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // not Linux: the process's own figure only
  }
  return (self.userCPUTime + self.systemCPUTime) / 1e6 + children;
}

const out = process.env.TEST_CPU_FILE;
if (out) {
  // Only the runner's direct child reports: the processes it starts must not overwrite its figure.
  delete process.env.TEST_CPU_FILE;
  process.once('exit', () => {
    try {
      writeFileSync(out, String(cpuSeconds()));
    } catch {
      // the run's cache directory is gone (the runner was stopped)
    }
  });
}
