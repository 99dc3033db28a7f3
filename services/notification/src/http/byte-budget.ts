// Bounds the memory held by request bodies at once: each request reserves its declared size before
// its body is read; the rest wait (TCP back-pressure holds their bytes in the kernel, not the heap).
export class ByteBudget {
  private available: number;
  private readonly waiting: Array<{ bytes: number; resume: () => void }> = [];

  constructor(readonly capacity: number) {
    this.available = capacity;
  }

  /**
   * Reserves min(bytes, capacity) and returns the amount to release: at once when it fits (the common
   * case, no promise), otherwise as a promise that resolves when earlier requests have released.
   */
  acquire(bytes: number): number | Promise<number> {
    const n = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && n <= this.available) {
      this.available -= n;
      return n;
    }
    return new Promise<number>((resolve) => this.waiting.push({ bytes: n, resume: () => resolve(n) }));
  }

  /** Reserves min(bytes, capacity) only when it fits at once (nobody waiting), else undefined. */
  tryAcquire(bytes: number): number | undefined {
    const n = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length > 0 || n > this.available) return undefined;
    this.available -= n;
    return n;
  }

  release(bytes: number): void {
    this.available += bytes;
    // FIFO: a large request at the head is not starved by small ones behind it.
    while (this.waiting.length > 0 && this.waiting[0]!.bytes <= this.available) {
      const next = this.waiting.shift()!;
      this.available -= next.bytes;
      next.resume();
    }
  }

  get inUse(): number {
    return this.capacity - this.available;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
