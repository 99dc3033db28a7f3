// The embedded platform: the six canister cores on one EmbeddedHost, wired to each other the way the
// IC wires them (cores.ts), initialised on first open, driven by a scheduler that plays the part of the
// IC's canister timers, and reached through in-process clients with a chosen caller principal.
import type { CallContext } from '@domdao/canister-kit';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import type { BlocksCallbackQuery, CanisterClients, CanisterIds, CanisterName } from '../api.ts';
import { EMBEDDED_CANISTER_IDS } from '../principals.ts';
import { METHOD_TABLES } from '../tables.ts';
import { copyValue } from './copy-value.ts';
import { TIMERS, wire, type Cores } from './cores.ts';
import type { EmbeddedPlatformOptions } from './options.ts';

export type { EmbeddedPlatformOptions } from './options.ts';

/** The DOM ledger's fee: 10 000 e8s (0.0001 DOM), as DFINITY's ledgers charge for ICP and most SNS tokens. */
export const DEFAULT_TRANSFER_FEE = 10_000n;

const CALLER = Symbol('caller');
/** A canister's client class: one instance per caller, its methods on the prototype. */
type ClientClass = new (caller: string) => Record<string, (...args: unknown[]) => Promise<unknown>>;

/** How many principals' clients `as()` keeps (a bounded cache: members are many). */
export const AS_CACHE_SIZE = 10_000;

/** The longest the scheduler sleeps by default (the shortest timer period), so it notices work created by calls it did not see. */
const MAX_SLEEP_MS = Math.min(...TIMERS.map((t) => t.timer.every_seconds)) * 1000;

export class EmbeddedPlatform {
  readonly ids: CanisterIds = EMBEDDED_CANISTER_IDS;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** When each period-driven timer last ran. */
  private readonly lastRun = new Map<string, bigint>();

  private constructor(
    readonly host: EmbeddedHost,
    private readonly clock: () => bigint,
    private readonly cores: Cores,
    private readonly onSchedulerError: (err: unknown) => void,
    private readonly maxSleepMs: number,
  ) {}

  static async open(options: EmbeddedPlatformOptions = {}): Promise<EmbeddedPlatform> {
    const host = EmbeddedHost.open({
      ...(options.dir !== undefined && { dir: options.dir }),
      ...(options.fsync !== undefined && { fsync: options.fsync }),
    });
    const clock = options.clock ?? (() => BigInt(Date.now()) * 1_000_000n);
    const cores = wire(host, clock, EMBEDDED_CANISTER_IDS, options);
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

  /**
   * The six clients calling as `principal`, built once per principal (a hot path of the bridge
   * asks per request). The clients hold no state beyond the principal, so sharing them is safe; the
   * cache keeps the most recently added AS_CACHE_SIZE principals.
   */
  as(principal: string): CanisterClients {
    const cached = this.asCache.get(principal);
    if (cached) return cached;
    const clients = {
      governance: this.client('governance', principal),
      membership: this.client('membership', principal),
      user: this.client('user', principal),
      campaign: this.client('campaign', principal),
      treasury: this.client('treasury', principal),
      ledger: this.client('ledger', principal),
    } as CanisterClients;
    if (this.asCache.size >= AS_CACHE_SIZE) this.asCache.delete(this.asCache.keys().next().value!);
    this.asCache.set(principal, clients);
    return clients;
  }

  private readonly asCache = new Map<string, CanisterClients>();

  /**
   * ICRC-3 callbacks called as `principal` (decision L43): the callback's canister must be one of the
   * platform's and its method a query of that canister's interface (the ledger's get_archived_blocks in
   * archive mode); any other is refused as a call to a missing canister or method would be.
   */
  blocksCallback(principal: string): BlocksCallbackQuery {
    return async ([canister, method], ranges) => {
      const name = (Object.keys(this.ids) as CanisterName[]).find((n) => this.ids[n] === canister);
      if (!name) throw new Error(`no canister ${canister} on the embedded platform`);
      if (METHOD_TABLES[name][method]?.kind !== 'query') throw new Error(`${name} has no query method ${method}`);
      const client = this.as(principal)[name] as unknown as Record<string, (ranges: unknown) => Promise<never>>;
      return client[method]!(ranges);
    };
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

  /** Timers with a due time run at every step (the scheduler wakes when they are due); the others when their period has elapsed. */
  private async step(): Promise<void> {
    const now = this.clock();
    for (const { canister, timer, periodNs } of TIMERS) {
      const key = `${canister}.${timer.name}`;
      if (!timer.due && now - (this.lastRun.get(key) ?? 0n) < periodNs) continue;
      await this.host.update(canister, () => timer.run(this.cores[canister], { caller: this.ids[canister], now }));
      if (!timer.due) this.lastRun.set(key, now);
    }
  }

  /** When the next step is due: the earliest time a timer reports (a proposal transition, a retry), at most maxSleepMs away. */
  private nextDelayMs(): number {
    const now = this.clock();
    const due = TIMERS.flatMap(({ canister, timer }) =>
      timer.due
        ? [this.host.query(canister, () => timer.due!(this.cores[canister], { caller: this.ids[canister], now }))]
        : [],
    ).filter((t): t is bigint => t !== undefined);
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
    let Client = this.clientClasses.get(canister);
    if (!Client) this.clientClasses.set(canister, (Client = this.clientClass(canister)));
    return new Client(caller);
  }

  private readonly clientClasses = new Map<CanisterName, ClientClass>();

  /**
   * One class per canister whose methods are getters on its prototype: a client is one small object
   * holding its caller, and reading a method gives a closure over that caller (so destructuring still
   * works). Closures built for every method per principal had cost ≈26 KB per principal, which the
   * as() cache kept long enough to be promoted and then dropped: most of the old-space garbage of a
   * vote storm, and with it the long pauses of the collector (decision P4).
   */
  private clientClass(canister: CanisterName): ClientClass {
    const core = this.cores[canister] as unknown as Record<string, (ctx: CallContext, ...args: unknown[]) => unknown>;
    class Client {
      readonly [CALLER]: string;
      constructor(caller: string) {
        this[CALLER] = caller;
      }
    }
    for (const [name, spec] of Object.entries(METHOD_TABLES[canister])) {
      const fn = core[name];
      if (typeof fn !== 'function')
        throw new Error(`${canister}.${name} is in the Candid interface but not in the core`);
      // Arguments and results are copied, as Candid copies them between a caller and a canister.
      const call =
        spec.kind === 'update'
          ? (caller: string, args: unknown[]) =>
              this.host.update(canister, () => fn({ caller, now: this.clock() }, ...copyValue(args))).then(copyValue)
          : async (caller: string, args: unknown[]) =>
              copyValue(this.host.query(canister, () => fn({ caller, now: this.clock() }, ...copyValue(args))));
      Object.defineProperty(Client.prototype, name, {
        enumerable: true,
        get(this: Client) {
          const caller = this[CALLER];
          return (...args: unknown[]) => call(caller, args);
        },
      });
    }
    return Client as unknown as ClientClass;
  }

  private async initialise(options: EmbeddedPlatformOptions): Promise<void> {
    const { ids, cores, host } = this;
    const admins = options.admins ?? [];
    const registrars = options.registrars ?? [];
    const initialised = (canister: CanisterName) => host.store(canister, 'config').has('config');
    if (!initialised('membership')) {
      await host.update('membership', () =>
        cores.membership.init({ user_canister: ids.user, governance_canister: ids.governance, admins }),
      );
    }
    if (!initialised('governance')) {
      await host.update('governance', () =>
        cores.governance.init({
          self: ids.governance,
          membership_canister: ids.membership,
          treasury_canister: ids.treasury,
          campaign_canister: ids.campaign,
          admins: [...admins, ...(options.governanceAdmins ?? [])],
          trusted_proposers: options.trustedProposers ?? registrars,
        }),
      );
    }
    if (!initialised('user')) await host.update('user', () => cores.user.init({ registrars, admins }));
    if (!initialised('campaign'))
      await host.update('campaign', () =>
        cores.campaign.init({ admins, self: ids.campaign, governance: ids.governance }),
      );
    if (!initialised('treasury'))
      await host.update('treasury', () =>
        cores.treasury.init({ governance_canister: ids.governance, self: ids.treasury, admins }),
      );
    // State written before the ledger existed: the treasury and campaign canisters learn their own principal (L23).
    for (const canister of ['treasury', 'campaign'] as const) {
      const config = host.store<string, { self?: string }>(canister, 'config');
      if (config.get('config') && !config.get('config')!.self)
        await host.update(canister, () => config.set('config', { ...config.get('config')!, self: ids[canister] }));
    }
    // State written before decision G50: the campaign canister learns which governance may ask it to refresh its price.
    if (!host.store<string, { governance?: string }>('campaign', 'config').get('config')!.governance)
      await host.update('campaign', () => cores.campaign.set_governance(ids.governance));
    if (!initialised('ledger')) {
      // SNS layout: governance is the minting account; the initial distribution is configuration.
      await host.update('ledger', () =>
        cores.ledger.init(
          {
            minting_account: { owner: ids.governance },
            transfer_fee: options.ledger?.transferFee ?? DEFAULT_TRANSFER_FEE,
            token_name: 'DOM',
            token_symbol: 'DOM',
            decimals: 8,
            initial_balances: options.ledger?.initialBalances ?? [],
            ...(options.ledger?.archive && { archive: { local_blocks: options.ledger.archive.localBlocks } }),
          },
          { caller: ids.governance, now: this.clock() },
        ),
      );
    }
  }
}
