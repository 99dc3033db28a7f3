/**
 * What a message overwrote in stable memory, in the order it wrote it: a trap puts it back, last write
 * first. The old bytes go into one growing buffer rather than a copy per write: Azle's stable structures
 * write a few bytes at a time, millions of times in a wasm test (decision W11).
 */
export class StableUndo {
  private saved = new Uint8Array(1024);
  private used = 0;
  /** Each write's offset in stable memory and its length. */
  private readonly writes: number[] = [];

  /** Keeps the `length` bytes at `offset` of `stable`, before a write there. */
  record(stable: Uint8Array, offset: number, length: number): void {
    if (this.used + length > this.saved.length) {
      const grown = new Uint8Array(Math.max(this.saved.length * 2, this.used + length));
      grown.set(this.saved.subarray(0, this.used));
      this.saved = grown;
    }
    copyBytes(this.saved, this.used, stable, offset, length);
    this.used += length;
    this.writes.push(offset, length);
  }

  /** Puts the bytes of every recorded write back into `stable`, last write first. */
  undo(stable: Uint8Array): void {
    let end = this.used;
    for (let i = this.writes.length - 2; i >= 0; i -= 2) {
      const offset = this.writes[i]!;
      const length = this.writes[i + 1]!;
      end -= length;
      copyBytes(stable, offset, this.saved, end, length);
    }
  }
}

/**
 * `length` bytes from `source` at `from` into `target` at `to`, both ranges already checked: a loop for a
 * few bytes, where making a subarray for `set` costs more than the copy.
 */
export function copyBytes(target: Uint8Array, to: number, source: Uint8Array, from: number, length: number): void {
  if (length <= 16) for (let i = 0; i < length; i++) target[to + i] = source[from + i]!;
  else target.set(source.subarray(from, from + length), to);
}
