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
export const SECONDS = {
  'packages/canisters/test/wasm-journey.test.ts': 281,
  'packages/canisters/test/wasm-limits.test.ts': 233,
  'services/bridge/test/account-recovery.test.ts': 156,
  'packages/canisters/test/wasm-stable-index.test.ts': 120,
  'scripts/test/start-and-register.test.ts': 109,
  'scripts/test-runner.test.ts': 75,
  'services/bridge/test/crash-consistency.test.ts': 70,
  'packages/canisters/test/ledger-nat.test.ts': 62,
  'services/bridge/test/account-takeover.test.ts': 60,
  'services/bridge/test/fuzz-openapi.test.ts': 40,
  'services/bridge/test/ai.test.ts': 35,
  'packages/canister-kit/test/stable-index.test.ts': 30,
  'packages/canisters/test/candid.test.ts': 29,
  'packages/canister-kit/test/restart-bound.test.ts': 26,
  'packages/canister-kit/test/log-format.test.ts': 16,
  'canisters/user/test/operations.test.ts': 14,
  'services/bridge/test/openapi.test.ts': 12,
  'packages/canister-kit/test/hot-path.test.ts': 11,
  'packages/notification-client/test/client.test.ts': 10,
  'packages/canister-kit/test/embedded-host.test.ts': 9,
  'packages/canisters/test/readme.test.ts': 9,
  'packages/canisters/test/campaign-money.test.ts': 8,
};
export const DEFAULT_SECONDS = 5;

/**
 * `npm run test:fast` (decision R18): the deterministic cores and units, no servers, no browser, no
 * wasm, no databases. Directories take every file under them.
 */
export const FAST = [
  // the six canisters' cores, each on its own
  'canisters/',
  // the canister kit's units (its crash tests, which kill child processes, stay in npm test)
  'packages/canister-kit/test/codec.test.ts',
  'packages/canister-kit/test/compaction-reuse.test.ts',
  'packages/canister-kit/test/compaction.test.ts',
  'packages/canister-kit/test/hot-path.test.ts',
  'packages/canister-kit/test/log-format.test.ts',
  'packages/canister-kit/test/log-space.test.ts',
  'packages/canister-kit/test/reply-budget.test.ts',
  'packages/canister-kit/test/restart-bound.test.ts',
  'packages/canister-kit/test/snapshot-format.test.ts',
  'packages/canister-kit/test/stable-index.test.ts',
  'packages/canister-kit/test/stable-range.test.ts',
  // the canisters wired together on the embedded platform, in process
  'packages/canisters/test/campaign-money.test.ts',
  'packages/canisters/test/canister-imports.test.ts',
  'packages/canisters/test/embedded-copy.test.ts',
  'packages/canisters/test/platform-as.test.ts',
  'packages/canisters/test/user-membership.test.ts',
  'packages/canisters/test/wiring.test.ts',
  // pure functions of the services
  'packages/service-kit/test/bearer.test.ts',
  'services/bridge/test/oracle-aggregate.test.ts',
  'services/bridge/test/price-job-decide.test.ts',
  'services/notification/test/calendar-fold.test.ts',
  'services/notification/test/date-formats.test.ts',
  'services/notification/test/fast-checks.test.ts',
  'services/notification/test/render-equivalence.test.ts',
];
