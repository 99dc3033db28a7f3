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
 * of the file inside its shared process, decisions R17 and R20), from a whole run at fa30e6f on
 * 2026-11-29, four files at a time with another process keeping one CPU busy (11 min 24 s); files
 * under 3 s are left out and count as DEFAULT_SECONDS. Files are dealt into shared processes by these, and processes start
 * longest first, so a long one does not start last and hold the run open alone. Stale figures only
 * cost time.
 */
export const SECONDS = {
  'services/bridge/test/migrate-crash.test.ts': 97,
  'services/bridge/test/migrate-ic.test.ts': 96,
  'services/bridge/test/embedded-database.test.ts': 84,
  'scripts/test/shutdown-keepalive.test.ts': 83,
  'scripts/test-runner.test.ts': 71,
  'services/bridge/test/ic-deploy.test.ts': 66,
  'services/bridge/test/several-bridges.test.ts': 65,
  'platform/canisters/test/wasm-journey.test.ts': 63,
  'services/bridge/test/ic-snapshots.test.ts': 60,
  'platform/replica/test/replica-http.test.ts': 56,
  'scripts/test/start-signals.test.ts': 56,
  'apps/portal/test/portal-browser.test.ts': 55,
  'platform/canisters/test/wasm-stable-index.test.ts': 54,
  'platform/canisters/test/wasm-state-transfer.test.ts': 50,
  'services/bridge/test/migrate.test.ts': 47,
  'services/notification/test/front-door.test.ts': 46,
  'services/gateway/test/gateway.test.ts': 44,
  'platform/canisters/test/wasm-delegation.test.ts': 38,
  'scripts/test/start-and-register.test.ts': 37,
  'services/bridge/test/crash-kill9.test.ts': 36,
  'services/bridge/test/crash-consistency.test.ts': 34,
  'services/gateway/test/nginx.test.ts': 33,
  'services/bridge/test/canister-set.test.ts': 31,
  'services/bridge/test/ic-replica-history.test.ts': 31,
  'services/bridge/test/stores.test.ts': 29,
  'platform/canisters/test/wasm-limits.test.ts': 28,
  'services/bridge/test/ic-replica.test.ts': 28,
  'services/bridge/test/ai-search.test.ts': 27,
  'services/bridge/test/backup-embedded.test.ts': 26,
  'services/bridge/test/auth-limits.test.ts': 25,
  'services/bridge/test/backup-crash.test.ts': 24,
  'services/bridge/test/sessions.test.ts': 23,
  'apps/portal/test/portal-members-see.test.ts': 22,
  'apps/portal/test/portal-payloads.test.ts': 22,
  'services/bridge/test/ai.test.ts': 21,
  'services/notification/test/slow-senders.test.ts': 20,
  'services/bridge/test/fuzz-openapi.test.ts': 17,
  'apps/portal/test/portal-journeys-govern.test.ts': 16,
  'apps/portal/test/portal-delegation.test.ts': 14,
  'services/bridge/test/wallet.test.ts': 14,
  'apps/portal/test/portal-admin.test.ts': 13,
  'platform/canisters/test/icrc-suite.test.ts': 13,
  'services/bridge/test/account-recovery.test.ts': 13,
  'services/bridge/test/ai-queue.test.ts': 13,
  'services/bridge/test/backup-postgres.test.ts': 13,
  'services/bridge/test/embedded-pool.test.ts': 13,
  'apps/portal/test/portal-names-signin-price.test.ts': 12,
  'platform/canisters/test/candid.test.ts': 12,
  'services/bridge/test/inbox-digest.test.ts': 12,
  'services/bridge/test/member-names-join.test.ts': 12,
  'scripts/test/shutdown-stalled-client.test.ts': 11,
  'services/bridge/test/outbox.test.ts': 11,
  'services/bridge/test/governance-live.test.ts': 10,
  'services/bridge/test/jobs.test.ts': 10,
  'services/bridge/test/observability.test.ts': 10,
  'scripts/test/openapi-lint.test.ts': 9,
  'services/bridge/test/openapi.test.ts': 9,
  'services/bridge/test/price-job.test.ts': 9,
  'apps/portal/test/portal-wallet.test.ts': 8,
  'platform/canisters/test/wasm-ledger-history.test.ts': 8,
  'services/bridge/test/audit-roles.test.ts': 8,
  'services/bridge/test/governance-gateway.test.ts': 8,
  'services/bridge/test/governance-timeline.test.ts': 8,
  'services/bridge/test/member-emails.test.ts': 8,
  'services/bridge/test/owner-starts-afresh.test.ts': 8,
  'services/notification/test/limits.test.ts': 8,
  'apps/portal/test/portal-activity.test.ts': 7,
  'apps/portal/test/portal-journeys.test.ts': 7,
  'apps/portal/test/portal-live.test.ts': 7,
  'platform/canisters/test/wasm-state-budget.test.ts': 7,
  'services/bridge/test/address-forms.test.ts': 7,
  'services/bridge/test/admin-users.test.ts': 7,
  'services/bridge/test/audit.test.ts': 7,
  'apps/portal/test/portal-bidi.test.ts': 6,
  'packages/canister-kit/test/restart-bound.test.ts': 6,
  'packages/canister-kit/test/stable-index.test.ts': 6,
  'platform/replica/test/management.test.ts': 6,
  'services/bridge/test/api-docs.test.ts': 6,
  'services/bridge/test/audit-browser.test.ts': 6,
  'services/bridge/test/browser-cors.test.ts': 6,
  'services/bridge/test/journey.test.ts': 6,
  'apps/portal/test/portal-elsewhere.test.ts': 5,
  'apps/portal/test/portal-owner-starts-afresh.test.ts': 5,
  'packages/service-kit/test/drain.test.ts': 5,
  'services/bridge/test/member-pages.test.ts': 5,
  'services/bridge/test/membership.test.ts': 5,
  'services/bridge/test/openapi-contract.test.ts': 5,
  'services/bridge/test/oracle.test.ts': 5,
  'canisters/user/test/operations.test.ts': 4,
  'packages/notification-client/test/client.test.ts': 4,
  'platform/canisters/test/consent.test.ts': 4,
  'services/bridge/test/account-takeover.test.ts': 4,
  'services/bridge/test/ai-circuit.test.ts': 4,
  'services/bridge/test/backup-socket.test.ts': 4,
  'services/bridge/test/config.test.ts': 4,
  'services/bridge/test/governance-delegation.test.ts': 4,
  'services/bridge/test/inbox-activity.test.ts': 4,
  'services/bridge/test/member-names-lookalike.test.ts': 4,
  'services/bridge/test/portal-serving.test.ts': 4,
  'services/notification/test/date-formats.test.ts': 4,
  'services/notification/test/fast-checks.test.ts': 4,
  'apps/portal/test/pages-are-routes.test.ts': 3,
  'services/bridge/test/campaigns.test.ts': 3,
  'services/bridge/test/email-budget.test.ts': 3,
  'services/bridge/test/inbox-activity-times.test.ts': 3,
  'services/bridge/test/job-runs-grouped.test.ts': 3,
  'services/bridge/test/metrics-listener.test.ts': 3,
  'services/notification/test/delivery.test.ts': 3,
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
