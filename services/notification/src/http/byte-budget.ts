// Bounds the memory held by request bodies at once: each request reserves its declared size before
// its body is read; the rest wait (TCP back-pressure holds their bytes in the kernel, not the heap).
export class ByteBudget {
  private available: number;
  private readonly waiting: Array<{ bytes: number; resume: () => void }> = [];

  constructor(readonly capacity: number) {
    this.available = capacity;
  }

  /** Reserves min(bytes, capacity); resolves once reserved. Returns the amount to release. */
  async acquire(bytes: number): Promise<number> {
    const n = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && n <= this.available) {
      this.available -= n;
      return n;
    }
    await new Promise<void>((resume) => this.waiting.push({ bytes: n, resume }));
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
