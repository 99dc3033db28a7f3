// A compaction's share of the event loop (decision P17).
/**
 * How long a compaction works before it lets the event loop run, decoding a log or building a slice
 * (decision P17): on a slow machine 256 KiB of small records took 20–30 ms to decode and a slice of
 * 2,048 receipts 5–24 ms to gather, and a scavenge landing in the same turn took it past 50 ms.
 */
export const COMPACT_TURN_MS = 4;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a compaction has worked since it last let the event loop run, against its budget (P17). */
export class WorkTurn {
  private started = performance.now();
  constructor(private readonly budgetMs: number) {}

  get spent(): boolean {
    return performance.now() - this.started >= this.budgetMs;
  }

  /** Lets the event loop run, then `after` (a check, a test's probe), then starts a new turn. */
  async next(after?: () => void | Promise<void>): Promise<void> {
    await nextTurn();
    await after?.();
    this.restart();
  }

  /** The loop ran meanwhile (an awaited write). */
  restart(): void {
    this.started = performance.now();
  }
}
