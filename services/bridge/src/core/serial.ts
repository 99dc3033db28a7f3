// One at a time per key, on this instance (decision L25): a member's payments (contributions,
// donations) and transfers each wait for the earlier one of the same member, so two of them never
// read the same balance or allowance as if the other had not happened. Across instances the
// ledger's own checks and the durable records decide.

/** A runner that starts `fn` after every earlier run of the same `key` has settled. */
export function serialByKey(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<unknown>>();
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const run = (queues.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    // The map keeps only keys with work in flight.
    void tail.then(() => queues.get(key) === tail && queues.delete(key));
    return run;
  };
}
