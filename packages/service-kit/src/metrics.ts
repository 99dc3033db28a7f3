// Prometheus metrics (decision B69): one prom-client registry per process part, HTTP requests and
// durations by route template and status for every service (label `service`), and each service's own
// metrics registered by name. Under `npm start` the three services share one registry (one process,
// one set of process metrics, one scrape); run alone, each has its own.
import client, { type Counter, type Gauge, type Histogram } from 'prom-client';

/** Buckets of http_request_duration_seconds: 5 ms to 10 s. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Buckets of the latency histograms of outgoing calls (canisters, the inference server). */
export const CALL_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** prom-client's default gauges whose `_total` suffix says counter (decision B117): not exported. */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/** The route label of a request no route matched: one value, whatever the path (no label per probe). */
export const UNMATCHED_ROUTE = '(unmatched)';

interface HttpChildren {
  requests: Counter.Internal;
  duration: Histogram.Internal<string>;
}

export class Metrics {
  readonly registry = new client.Registry();
  #processMetrics = false;
  readonly #http = new Map<string, HttpChildren>();
  readonly #requests: Counter<string>;
  readonly #duration: Histogram<string>;

  constructor(options: { processMetrics?: boolean } = {}) {
    this.#requests = this.counter(
      'http_requests_total',
      'HTTP requests answered, by service, method, route template and status',
      ['service', 'method', 'route', 'status'],
    );
    this.#duration = this.histogram(
      'http_request_duration_seconds',
      'time from the request to the end of its answer, by service, method, route template and status',
      ['service', 'method', 'route', 'status'],
      HTTP_BUCKETS,
    );
    if (options.processMetrics) this.enableProcessMetrics();
  }

  /** Node's process metrics (CPU, memory, event loop lag, GC, handles), once per registry. */
  enableProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    client.collectDefaultMetrics({ register: this.registry });
    // Decision B117: prom-client's three unlabelled totals are gauges named like counters, which
    // `promtool check metrics` refuses; each is the sum of the gauge by type it also exports
    // (`sum without (type) (nodejs_active_handles)`), so they go.
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
  }

  /** The counter of that name, made on first use (a shared registry is asked by several parts). */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L> | undefined) ??
      new client.Counter({ name, help, labelNames, registers: [this.registry] })
    );
  }

  /** A gauge; `collect` runs at each scrape (a reading taken then: a table's backlog, an age). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    const existing = this.registry.getSingleMetric(name) as Gauge<L> | undefined;
    if (existing) return existing;
    return new client.Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect && {
        collect(this: Gauge<L>) {
          return collect(this);
        },
      }),
    });
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: number[] = CALL_BUCKETS,
  ): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L> | undefined) ??
      new client.Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  /** One answered request; the label children are kept, so a request costs a map lookup, not a label hash. */
  observeHttp(service: string, method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER';
    const key = `${service} ${m} ${route} ${status}`;
    let c = this.#http.get(key);
    if (c === undefined) {
      const labels = { service, method: m, route, status: String(status) };
      c = { requests: this.#requests.labels(labels), duration: this.#duration.labels(labels) };
      this.#http.set(key, c);
    }
    c.requests.inc();
    c.duration.observe(seconds);
  }

  /** The exposition in Prometheus' text format 0.0.4. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
