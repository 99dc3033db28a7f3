// What the canister followers share: one pass at a time (a second caller joins the pass under way),
// a pass now and every pollMs after the previous one ends, failures logged and retried at the next
// tick, subscribers kicked after each pass, and close() waiting for the pass in flight.
import type { EventLog } from './bus.ts';

export interface PollerOptions {
  pass(): Promise<number>;
  pollMs: number;
  events: Pick<EventLog, 'kick'>;
  /** The log event and message of a failed pass. */
  failure: { event: string; message: string };
  log?: { warn(obj: object, msg: string): void } | undefined;
  /** Told of each successful pass (the bridge's metrics: the followers' lag, decision B69). */
  onPass?: (() => void) | undefined;
}

export class Poller {
  readonly #o: PollerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #closed = false;

  constructor(o: PollerOptions) {
    this.#o = o;
  }

  get closed(): boolean {
    return this.#closed;
  }

  run(): Promise<number> {
    this.#running ??= this.#o.pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /**
   * A pass that starts after this call: the one under way (which may have read before the call) is
   * joined, then one more runs. Returns what both found.
   */
  async catchUp(): Promise<number> {
    return (await this.run()) + (await this.run());
  }

  start(): void {
    const pass = async (): Promise<void> => {
      try {
        await this.run();
        this.#o.onPass?.();
      } catch (err) {
        this.#o.log?.warn(
          { event: this.#o.failure.event, err: err instanceof Error ? err.message : String(err) },
          this.#o.failure.message,
        );
      }
      if (!this.#closed) this.#timer = setTimeout(tick, this.#o.pollMs).unref();
      this.#o.events.kick();
    };
    // A timer ignores its callback's promise: the pass handles its own failure above (decision R19).
    const tick = (): void => void pass();
    this.#timer = setTimeout(tick, 0).unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }
}
