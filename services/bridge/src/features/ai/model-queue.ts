// Requests queued per model (decision A7). The inference server holds one model at a time and a swap
// takes 10–30 s (spec 2 Limits), so mixed traffic must not alternate models call by call. The queue
// serves the loaded model's requests (up to `concurrency` at once). While another model waits, the
// loaded one keeps the server until `quantumMs` after it was loaded, as long as its own requests keep
// coming (one within `idleMs`); then, once nothing is in flight, the server goes to the other model
// whose request has waited longest. A swap thus carries everything that queued for the other model
// meanwhile, and no model waits more than a quantum plus a swap.

export interface ModelQueueOptions {
  /** Requests of the loaded model sent at once (the server's parallel slots). */
  concurrency: number;
  /** Longest the loaded model keeps the server while another model has waiting requests. */
  quantumMs: number;
  /** While another model waits, the loaded one is held only if its last request came this recently. Default quantumMs / 5. */
  idleMs?: number;
  /** Requests waiting in all queues before new ones are refused (QueueFullError). */
  maxWaiting: number;
  now?: () => number;
  onSwap?(from: string | undefined, to: string): void;
}

export class QueueFullError extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} inference requests are already waiting`);
  }
}

interface Job {
  model: string;
  at: number;
  start(swap: boolean): void;
}

export interface ModelQueue {
  /** Runs `task` when its model is (or becomes) the loaded one; `swap` tells the task its call loads the model. */
  run<T>(model: string, task: (swap: boolean) => Promise<T>): Promise<T>;
  stats(): { loaded: string | undefined; swaps: number; waiting: number; inFlight: number };
}

export function createModelQueue(o: ModelQueueOptions): ModelQueue {
  const now = o.now ?? (() => performance.now());
  const queues = new Map<string, Job[]>();
  let loaded: string | undefined;
  let loadedAt = 0;
  let inFlight = 0;
  let waiting = 0;
  let swaps = 0;
  let lastArrival = 0;
  let wake: NodeJS.Timeout | undefined;
  const idleMs = o.idleMs ?? o.quantumMs / 5;

  const othersWaiting = () => [...queues].some(([m, q]) => m !== loaded && q.length > 0);
  const take = (model: string): Job => {
    const q = queues.get(model)!;
    const job = q.shift()!;
    if (q.length === 0) queues.delete(model);
    waiting--;
    return job;
  };
  const pump = () => {
    while (inFlight < o.concurrency && waiting > 0) {
      const mine = loaded !== undefined ? queues.get(loaded) : undefined;
      const others = othersWaiting();
      const t = now();
      const inQuantum = t - loadedAt < o.quantumMs;
      if (mine?.length && (!others || inQuantum)) {
        inFlight++;
        take(loaded!).start(false);
        continue;
      }
      // Hold the loaded model while its requests keep coming, up to its quantum: swapping away now
      // would only swap back for the next one.
      if (loaded !== undefined && others && inQuantum && t - lastArrival < idleMs) {
        wake ??= setTimeout(
          () => ((wake = undefined), pump()),
          Math.max(1, Math.min(loadedAt + o.quantumMs, lastArrival + idleMs) - t),
        );
        return;
      }
      // A swap waits for the loaded model's calls to finish: swapping under them would slow them all.
      if (inFlight > 0) return;
      let oldest: Job | undefined;
      for (const [m, q] of queues)
        if (q[0] && (!others || m !== loaded) && (!oldest || q[0].at < oldest.at)) oldest = q[0];
      if (!oldest) return;
      const swap = oldest.model !== loaded;
      if (swap) {
        o.onSwap?.(loaded, oldest.model);
        swaps++;
        loaded = oldest.model;
      }
      loadedAt = now();
      lastArrival = loadedAt;
      inFlight++;
      take(oldest.model).start(swap);
    }
  };

  return {
    run<T>(model: string, task: (swap: boolean) => Promise<T>): Promise<T> {
      if (waiting >= o.maxWaiting) return Promise.reject(new QueueFullError(waiting));
      return new Promise<T>((resolve, reject) => {
        const job: Job = {
          model,
          at: now(),
          start: (swap) => {
            task(swap)
              .then(resolve, reject)
              .finally(() => {
                inFlight--;
                pump();
              });
          },
        };
        if (model === loaded) lastArrival = job.at;
        const q = queues.get(model);
        if (q) q.push(job);
        else queues.set(model, [job]);
        waiting++;
        pump();
      });
    },
    stats: () => ({ loaded, swaps, waiting, inFlight }),
  };
}
