// How scripts/test.mjs schedules the test files (decision R17) and what `npm run test:fast` runs
// (decision R18). Scheduling only changes when a file runs, never whether it does.
//
// Lanes are marked in the test file itself, by a line `// test-lane: <name>` in its comment head: at
// most one file of a lane runs at a time, beside files of other lanes or of none. `browser`: Chromium
// and the servers it is pointed at; `wasm`: the canisters' built wasm in Node's WebAssembly.

/**
 * Seconds each file took alone on the 2-CPU machine (the runner's table, decision R17). Files start
 * longest first so a long file does not start last and hold the run open alone; a file not listed
 * counts as DEFAULT_SECONDS. Stale figures only cost time.
 */
export const SECONDS = {};
export const DEFAULT_SECONDS = 5;

/**
 * `npm run test:fast` (decision R18): the deterministic cores and units, no servers, no browser, no
 * wasm, no databases. Directories take every file under them.
 */
export const FAST = [];
