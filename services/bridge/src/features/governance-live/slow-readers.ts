// A stream's reader that falls behind (decision V38). What a stream writes beyond what the kernel
// takes waits in the response's buffer; a reader that never reads would grow it by every event for
// as long as it stays connected. When `write` says the buffer is full the stream is behind: heartbeats
// are left out until it drains (queued bytes are no news), events are still queued; once the bytes
// waiting pass LIVE_MAX_BUFFER_BYTES the stream is dropped, its buffer with it. The client's
// EventSource reconnects and reads its view again, as after any dropped connection.

/** What a stream writes into: the hijacked response. */
export interface StreamSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
}

export class BoundedWriter {
  #behind = false;
  #dropped = false;
  /** Bytes handed to the sink so far (the figure a drop is reported with). */
  written = 0;

  /**
   * @param maxBuffered bytes that may wait in the sink's buffer; one more drops the stream.
   * @param drop called once, with the bytes waiting then, when they passed `maxBuffered`.
   */
  constructor(
    private readonly sink: StreamSink,
    private readonly maxBuffered: number,
    private readonly drop: (buffered: number) => void,
  ) {}

  /** Whether the last write found the buffer full and it has not drained since. */
  get behind(): boolean {
    return this.#behind;
  }

  /** An event: queued even while the reader is behind, until the bound. */
  event(chunk: string): void {
    if (this.#dropped) return;
    this.written += Buffer.byteLength(chunk);
    if (!this.sink.write(chunk) && !this.#behind) {
      this.#behind = true;
      this.sink.once('drain', () => (this.#behind = false));
    }
    const buffered = this.sink.writableLength;
    if (buffered > this.maxBuffered) {
      this.#dropped = true;
      this.drop(buffered);
    }
  }

  /** A heartbeat: only while the reader keeps up (bytes already waiting keep the connection busy). */
  heartbeat(chunk: string): void {
    if (!this.#behind) this.event(chunk);
  }
}
