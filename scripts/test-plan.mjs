// How scripts/test.mjs schedules the test files (decision R17) and what `npm run test:fast` runs
// (decision R18). Scheduling only changes when a file runs, never whether it does.
//
// Lanes are marked in the test file itself, by a line `// test-lane: <name>` in its comment head: at
// most one file of a lane runs at a time, beside files of other lanes or of none. `browser`: Chromium
// and the servers it is pointed at; `wasm`: the canisters' built wasm in Node's WebAssembly; `replica`:
// the longest files that run the test replica beside bridges (decision R43), a lane of their own so they
// run beside the `wasm` lane rather than after it.

/**
 * Seconds each file took in a whole `npm test` on the 2-CPU machine (the runner's table: wall seconds
 * of the file inside its shared process, decisions R17 and R20), from a whole run at 4c06290 on
 * 2026-11-27, four files at a time (5 min 11 s); files under 3 s are left out and count as
 * DEFAULT_SECONDS. Files are dealt into shared processes by these, and processes start
 * longest first, so a long one does not start last and hold the run open alone. Stale figures only
 * cost time.
 */
export const SECONDS = {
  'platform/canisters/test/wasm-journey.test.ts': 78,
  'services/bridge/test/embedded-database.test.ts': 78,
  'platform/canisters/test/wasm-stable-index.test.ts': 71,
  // Decision R27's ten starts of npm start under load, measured alone on the loaded 2-CPU machine.
  'scripts/test/shutdown-keepalive.test.ts': 70,
  // Decision R48's stalled client: one start of npm start; measured alone at a load average of 20: 54–68 s wall.
  'scripts/test/shutdown-stalled-client.test.ts': 55,
  'apps/portal/test/portal-browser.test.ts': 47,
  // Not in the run above; measured alone (35–70 s wall as other work shared the CPUs: five PostgreSQL databases, three
  // bridge processes).
  'services/bridge/test/canister-set.test.ts': 45,
  'scripts/test-runner.test.ts': 39,
  'services/gateway/test/gateway.test.ts': 32,
  'platform/replica/test/replica-http.test.ts': 31,
  'services/bridge/test/ic-replica.test.ts': 65,
  // Decision R44 (25 members, not 50): measured alone at a load average of 16–22, back to back: 576 s wall and 109.9 s
  // CPU before, 283 s and 77.4 s after; the figure is the old one (180) scaled by 283/576.
  'services/bridge/test/migrate-ic.test.ts': 88,
  // Decision W28 (a snapshot is a file of its own, journaled): measured alone at a load average of 25, back to back:
  // 223 s wall and 62.8 s CPU before, 197 s and 39.6 s after (with W28's crash and restart test); the figure is the old
  // one scaled by 197/223.
  'services/bridge/test/ic-snapshots.test.ts': 177,
  // Not in the run above; measured alone through the runner at a load average of 17–20 (other sessions' work): 364 s
  // wall, 71 s CPU (a 4-member seed, deploy, a killed migrate and its rerun, decision R52).
  'services/bridge/test/migrate-crash.test.ts': 200,
  'services/bridge/test/backup-embedded.test.ts': 60,
  'services/bridge/test/backup-postgres.test.ts': 25,
  // Not in the run above; measured alone through the runner beside other helpers' work: 146 s (415 s at a load average
  // of 20); two bridge processes, nginx, the replica.
  'services/bridge/test/several-bridges.test.ts': 150,
  'scripts/test/start-signals.test.ts': 31,
  'services/bridge/test/crash-consistency.test.ts': 28,
  'platform/canisters/test/wasm-delegation.test.ts': 27,
  'services/bridge/test/ai-search.test.ts': 26,
  'scripts/test/start-and-register.test.ts': 25,
  'services/bridge/test/stores.test.ts': 25,
  'services/bridge/test/sessions.test.ts': 23,
  'services/gateway/test/nginx.test.ts': 23,
  'services/bridge/test/crash-kill9.test.ts': 21,
  'services/bridge/test/ai.test.ts': 19,
  'services/bridge/test/auth-limits.test.ts': 16,
  'services/bridge/test/fuzz-openapi.test.ts': 16,
  'services/bridge/test/wallet.test.ts': 16,
  'platform/canisters/test/wasm-limits.test.ts': 15,
  'apps/portal/test/portal-journeys-govern.test.ts': 14,
  'services/bridge/test/account-recovery.test.ts': 13,
  'apps/portal/test/portal-delegation.test.ts': 13,
  'services/bridge/test/ai-queue.test.ts': 12,
  'apps/portal/test/portal-admin.test.ts': 12,
  'platform/canisters/test/icrc-suite.test.ts': 11,
  'services/bridge/test/embedded-pool.test.ts': 11,
  'services/bridge/test/governance-gateway.test.ts': 9,
  'services/bridge/test/inbox-digest.test.ts': 9,
  'packages/canister-kit/test/restart-bound.test.ts': 8,
  'services/bridge/test/admin-users.test.ts': 8,
  'services/bridge/test/governance-timeline.test.ts': 8,
  'apps/portal/test/portal-journeys.test.ts': 8,
  'apps/portal/test/portal-wallet.test.ts': 8,
  'services/notification/test/slow-senders.test.ts': 8,
  'services/bridge/test/job-runs-grouped.test.ts': 7,
  'apps/portal/test/portal-live.test.ts': 7,
  'platform/canisters/test/candid.test.ts': 6,
  'scripts/test/openapi-lint.test.ts': 6,
  'services/bridge/test/browser-cors.test.ts': 6,
  'services/bridge/test/jobs.test.ts': 6,
  'services/bridge/test/account-takeover.test.ts': 5,
  // Not in the run above; estimated from account-takeover's (five bridges alike) and portal-journeys' (one page more).
  'services/bridge/test/owner-starts-afresh.test.ts': 5,
  'apps/portal/test/portal-owner-starts-afresh.test.ts': 6,
  // Not in the run above; measured alone on the 2-CPU machine beside other work (issue 48 items 2–4).
  'apps/portal/test/portal-names-signin-price.test.ts': 40,
  'services/bridge/test/member-names-join.test.ts': 12,
  'services/bridge/test/audit-browser.test.ts': 5,
  'services/bridge/test/governance-live.test.ts': 5,
  'services/bridge/test/journey.test.ts': 5,
  'services/bridge/test/member-emails.test.ts': 5,
  'apps/portal/test/portal-elsewhere.test.ts': 5,
  'services/bridge/test/price-job.test.ts': 5,
  'canisters/user/test/operations.test.ts': 4,
  'packages/canister-kit/test/stable-index.test.ts': 4,
  'platform/canisters/test/consent.test.ts': 4,
  'services/bridge/test/audit.test.ts': 4,
  'services/bridge/test/membership.test.ts': 4,
  'services/bridge/test/openapi.test.ts': 4,
  'services/bridge/test/oracle.test.ts': 4,
  'services/bridge/test/outbox.test.ts': 4,
  'services/bridge/test/portal-serving.test.ts': 4,
  'services/notification/test/idempotency.test.ts': 4,
  'services/bridge/test/ai-circuit.test.ts': 3,
  'services/bridge/test/campaigns.test.ts': 3,
  'services/bridge/test/observability.test.ts': 3,
  'services/bridge/test/openapi-contract.test.ts': 3,
  'services/notification/test/date-formats.test.ts': 3,
  'services/notification/test/delivery.test.ts': 3,
  'services/notification/test/fast-checks.test.ts': 3,
  'services/notification/test/hygiene.test.ts': 3,
};
export const DEFAULT_SECONDS = 1;

/**
 * Decision R21: the lanes whose processes keep V8's optimizing tier for WebAssembly. Every other test
 * process runs with `--liftoff-only`, as `npm start` does (decision R14): the embedded database's wasm
 * runs briefly in each process, and optimizing it cost more CPU than it saved (eight bridge files: about
 * 30.4 CPU s with it, 27.8 without). The canisters' wasm runs billions of instructions of QuickJS, where the
 * optimizing tier pays: two wasm files took 22.7 CPU s with it and 51.7 without.
 */
export const OPTIMIZED_WASM_LANES = ['wasm', 'replica'];

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
  'packages/canister-kit/test/sha256.test.ts',
  'packages/canister-kit/test/snapshot-format.test.ts',
  'packages/canister-kit/test/stable-index.test.ts',
  'packages/canister-kit/test/stable-range.test.ts',
  // the canisters wired together on the embedded platform, in process
  'platform/canisters/test/campaign-money.test.ts',
  'platform/canisters/test/canister-imports.test.ts',
  'platform/canisters/test/embedded-copy.test.ts',
  'platform/canisters/test/platform-as.test.ts',
  'platform/canisters/test/user-membership.test.ts',
  'platform/canisters/test/wiring.test.ts',
  // pure functions of the services
  'packages/service-kit/test/bearer.test.ts',
  'services/bridge/test/compiled-schemas.test.ts',
  'services/bridge/test/oracle-aggregate.test.ts',
  'services/bridge/test/price-job-decide.test.ts',
  'services/notification/test/calendar-fold.test.ts',
  'services/notification/test/date-formats.test.ts',
  'services/notification/test/fast-checks.test.ts',
  'services/notification/test/render-equivalence.test.ts',
];
