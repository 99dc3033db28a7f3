// Loaded with `node --import` into the process the memory benchmark watches: every
// MEMORY_PROBE_MS it appends one JSON line of process.memoryUsage() and V8's heap statistics to
// MEMORY_PROBE_FILE, so the benchmark can tell the JavaScript heap from the rest of the resident set.
// With MEMORY_PROBE_GC=1 a full collection runs before each sample: heapUsed is then what is alive,
// so a leak shows as a rising heapUsed (it changes how the heap grows: not for the RSS figures).
import { appendFileSync } from 'node:fs';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const file = process.env.MEMORY_PROBE_FILE;
const every = Number(process.env.MEMORY_PROBE_MS ?? 10_000);
if (file) {
  let gc;
  if (process.env.MEMORY_PROBE_GC === '1') {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
  }
  const sample = () => {
    gc?.();
    const m = process.memoryUsage();
    const h = getHeapStatistics();
    appendFileSync(
      file,
      `${JSON.stringify({ t: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, malloced: h.malloced_memory, code: h.total_heap_size_executable })}\n`,
    );
  };
  setInterval(sample, every).unref();
}
