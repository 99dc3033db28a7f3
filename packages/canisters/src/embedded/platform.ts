// The embedded platform: the five canister cores on one EmbeddedHost, wired to each other the way the
// IC wires them (each inter-canister call is a query or an update call of the callee, made with the
// caller canister's principal), initialised on first open, driven by a scheduler that plays the part
// of the IC's canister timers, and reached through in-process clients with a chosen caller principal.
import { randomBytes } from 'node:crypto';
import type { CallContext, StoreKey } from '@domdao/canister-kit';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { CAMPAIGN_PRICE_REFRESH_SECONDS, CAMPAIGN_STORE_NAMES, campaignCore, type CampaignStores } from '@domdao/canister-campaign';
import { GOVERNANCE_STORE_NAMES, GOVERNANCE_TICK_SECONDS, governanceCore, type GovernanceStores } from '@domdao/canister-governance';
import { MEMBERSHIP_STORE_NAMES, membershipCore, type MembershipStores } from '@domdao/canister-membership';
import { TREASURY_STORE_NAMES, treasuryCore, type TreasuryStores } from '@domdao/canister-treasury';
import { USER_STORE_NAMES, userCore, type UserStores } from '@domdao/canister-user';
import type { CanisterClients, CanisterIds, CanisterName } from '../api.ts';
import { EMBEDDED_CANISTER_IDS } from '../principals.ts';
import { METHOD_TABLES } from '../tables.ts';

export interface EmbeddedPlatformOptions {
  /** Directory of durable state; in memory when absent. */
  dir?: string;
  fsync?: boolean;
  /** IC time in nanoseconds; the wall clock by default. Tests pass a controllable one. */
  clock?: () => bigint;
  /** Used on first open only (later opens keep the stored configuration). */
  admins?: string[];
  /** The bridge's principal(s): user canister registrars and trusted governance proposers. */
  registrars?: string[];
  trustedProposers?: string[];
  /** Run the timers (default true). Tests that drive time themselves call tick(). */
  scheduler?: boolean;
  /** Longest scheduler sleep in ms (default 60 000): it also wakes at the next known due time. */
  schedulerMaxSleepMs?: number;
  /** Test-only fault injection: throw to make an inter-canister call fail as a rejected call would. */
  interceptCall?: (from: CanisterName, to: CanisterName, method: string) => void;
  /** Scheduler errors (a step that threw); default: written to stderr. */
  onSchedulerError?: (err: unknown) => void;
}

/** The longest the scheduler sleeps by default, so it notices work created by calls it did not see. */
// The governance canister's timer period (canisters/governance/timers.ts), as its Azle entry point arms it.
const MAX_SLEEP_MS = GOVERNANCE_TICK_SECONDS * 1000;
// The campaign canister's own timer period (canisters/campaign/timers.ts), as its Azle entry point arms it.
const CAMPAIGN_PRICE_REFRESH_NS = BigInt(CAMPAIGN_PRICE_REFRESH_SECONDS) * 1_000_000_000n;

export class EmbeddedPlatform {
  readonly ids: CanisterIds = EMBEDDED_CANISTER_IDS;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private lastCampaignRefresh = 0n;

  private constructor(
    readonly host: EmbeddedHost,
    private readonly clock: () => bigint,
    private readonly cores: ReturnType<typeof wire>,
    private readonly onSchedulerError: (err: unknown) => void,
    private readonly maxSleepMs: number,
  ) {}

  static async open(options: EmbeddedPlatformOptions = {}): Promise<EmbeddedPlatform> {
    const host = EmbeddedHost.open({ ...(options.dir !== undefined && { dir: options.dir }), ...(options.fsync !== undefined && { fsync: options.fsync }) });
    const clock = options.clock ?? (() => BigInt(Date.now()) * 1_000_000n);
    const cores = wire(host, clock, EMBEDDED_CANISTER_IDS, options.interceptCall);
    const platform = new EmbeddedPlatform(
      host,
      clock,
      cores,
      options.onSchedulerError ?? ((e) => console.error('embedded scheduler:', e)),
      options.schedulerMaxSleepMs ?? MAX_SLEEP_MS,
    );
    await platform.initialise(options);
    if (options.scheduler !== false) platform.schedule(0);
    return platform;
  }

  /** In-process clients whose calls carry `principal` as the caller. */
  as(principal: string): CanisterClients {
    return {
      governance: this.client('governance', principal),
      membership: this.client('membership', principal),
      user: this.client('user', principal),
      campaign: this.client('campaign', principal),
      treasury: this.client('treasury', principal),
    } as CanisterClients;
  }

  /** One scheduler step now: what the IC's timers do (governance transitions, mint retries, price refresh). */
  tick(): Promise<void> {
    // One step at a time: a timer firing during a manual tick waits for it.
    const run = (this.running ?? Promise.resolve()).then(() => this.step());
    this.running = run.catch(() => undefined);
    return run;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.host.close();
  }

  private async step(): Promise<void> {
    const { ids, cores } = this;
    const now = this.clock();
    await this.host.update('governance', () => cores.governance.tick({ caller: ids.governance, now }));
    await this.host.update('user', () => cores.user.process_retry_queue({ caller: ids.user, now }));
    if (now - this.lastCampaignRefresh >= CAMPAIGN_PRICE_REFRESH_NS) {
      await this.host.update('campaign', () => cores.campaign.refresh_price({ caller: ids.campaign, now }));
      this.lastCampaignRefresh = now;
    }
  }

  /** When the next step is due: the earliest proposal transition or retry, at most a minute away. */
  private nextDelayMs(): number {
    const now = this.clock();
    const ctx = { caller: this.ids.governance, now };
    const due = [
      this.host.query('governance', () => this.cores.governance.next_wakeup(ctx)),
      this.host.query('user', () => this.cores.user.next_retry_at({ caller: this.ids.user, now })),
    ].filter((t): t is bigint => t !== undefined);
    const next = due.length ? due.reduce((a, b) => (a < b ? a : b)) : undefined;
    if (next === undefined) return this.maxSleepMs;
    return Math.max(0, Math.min(this.maxSleepMs, Number((next - now) / 1_000_000n) + 1));
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.tick()
        .catch((e: unknown) => this.onSchedulerError(e))
        .finally(() => {
          if (!this.closed) this.schedule(this.nextDelayMs());
        });
    }, delayMs);
    this.timer.unref();
  }

  private client(canister: CanisterName, caller: string): Record<string, (...args: unknown[]) => Promise<unknown>> {
    const core = this.cores[canister] as unknown as Record<string, (ctx: CallContext, ...args: unknown[]) => unknown>;
    const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const [name, spec] of Object.entries(METHOD_TABLES[canister])) {
      const fn = core[name];
      if (typeof fn !== 'function') throw new Error(`${canister}.${name} is in the Candid interface but not in the core`);
      // Arguments and results are copied, as Candid copies them between a caller and a canister.
      out[name] =
        spec.kind === 'update'
          ? async (...args) => structuredClone(await this.host.update(canister, () => fn({ caller, now: this.clock() }, ...structuredClone(args))))
          : async (...args) => structuredClone(this.host.query(canister, () => fn({ caller, now: this.clock() }, ...structuredClone(args))));
    }
    return out;
  }

  private async initialise(options: EmbeddedPlatformOptions): Promise<void> {
    const { ids, cores, host } = this;
    const admins = options.admins ?? [];
    const registrars = options.registrars ?? [];
    const initialised = (canister: CanisterName) => host.store(canister, 'config').has('config');
    if (!initialised('membership')) {
      await host.update('membership', () => cores.membership.init({ user_canister: ids.user, governance_canister: ids.governance, admins }));
    }
    if (!initialised('governance')) {
      await host.update('governance', () =>
        cores.governance.init({
          self: ids.governance,
          membership_canister: ids.membership,
          treasury_canister: ids.treasury,
          admins,
          trusted_proposers: options.trustedProposers ?? registrars,
        }),
      );
    }
    if (!initialised('user')) await host.update('user', () => cores.user.init({ registrars, admins }));
    if (!initialised('campaign')) await host.update('campaign', () => cores.campaign.init({ admins }));
    if (!initialised('treasury')) await host.update('treasury', () => cores.treasury.init({ governance_canister: ids.governance, admins }));
  }
}

function stores<T>(host: EmbeddedHost, canister: CanisterName, names: Record<keyof T, string>): T {
  return Object.fromEntries(Object.entries(names).map(([k, name]) => [k, host.store<StoreKey, unknown>(canister, name as string)])) as T;
}

/** The cores with their inter-canister clients: each call runs as the callee's query or update. */
function wire(host: EmbeddedHost, clock: () => bigint, ids: CanisterIds, intercept?: EmbeddedPlatformOptions['interceptCall']) {
  const ctx = (from: CanisterName): CallContext => ({ caller: ids[from], now: clock() });
  const query = <T>(from: CanisterName, to: CanisterName, method: string, fn: (c: CallContext) => T): Promise<T> => {
    try {
      intercept?.(from, to, method);
      return Promise.resolve(structuredClone(host.query(to, () => fn(ctx(from)))));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const update = async <T>(from: CanisterName, to: CanisterName, method: string, fn: (c: CallContext) => T | Promise<T>): Promise<T> => {
    intercept?.(from, to, method);
    return structuredClone(await host.update(to, () => fn(ctx(from))));
  };

  const membership = membershipCore(stores<MembershipStores>(host, 'membership', MEMBERSHIP_STORE_NAMES));
  // Calls resolve their callee when made, so a core may name one wired after it (governance → treasury).
  const governance = governanceCore(stores<GovernanceStores>(host, 'governance', GOVERNANCE_STORE_NAMES), {
    membership: {
      get_membership_status: (owner) => query('governance', 'membership', 'get_membership_status', (c) => membership.get_membership_status(c, owner)),
      count_active_members: () => query('governance', 'membership', 'count_active_members', (c) => membership.count_active_members(c)),
      apply_policy: (policy) => update('governance', 'membership', 'apply_policy', (c) => membership.apply_policy(c, policy)),
    },
    treasury: {
      execute_payout: (id, payout) => update('governance', 'treasury', 'execute_payout', (c) => treasury.execute_payout(c, id, payout)),
    },
  });
  const treasury = treasuryCore(stores<TreasuryStores>(host, 'treasury', TREASURY_STORE_NAMES), {
    governance: { get_dom_price: () => query('treasury', 'governance', 'get_dom_price', (c) => governance.get_dom_price(c)) },
  });
  const campaign = campaignCore(stores<CampaignStores>(host, 'campaign', CAMPAIGN_STORE_NAMES), {
    governance: { get_dom_price: () => query('campaign', 'governance', 'get_dom_price', (c) => governance.get_dom_price(c)) },
    membership: { get_membership_status: (owner) => query('campaign', 'membership', 'get_membership_status', (c) => membership.get_membership_status(c, owner)) },
  });
  const user = userCore(stores<UserStores>(host, 'user', USER_STORE_NAMES), {
    membership: {
      mint_membership_registered: (owner, tos) => update('user', 'membership', 'mint_membership_registered', (c) => membership.mint_membership_registered(c, owner, tos)),
      upgrade_to_active: (owner, proof) => update('user', 'membership', 'upgrade_to_active', (c) => membership.upgrade_to_active(c, owner, proof)),
      get_membership_status: (owner) => query('user', 'membership', 'get_membership_status', (c) => membership.get_membership_status(c, owner)),
    },
    randomBytes: async () => new Uint8Array(randomBytes(16)),
  });
  return { governance, membership, user, campaign, treasury };
}

