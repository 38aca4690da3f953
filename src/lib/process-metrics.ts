// This process's own Prometheus metrics (prom-client), scraped at /metrics (routes/server/statistics.ts): requests by route,
// bytes uploaded and served, uploads in flight, job failures. One registry per Chute (a test builds many in one
// process); the figures every instance shares (queue depth, storage used) are read from the database at scrape time
// (services/statistics/prometheus.ts) and set on the gauges here.
//
// Recording sits on the hot path (every redirect, every /raw). prom-client's own inc() and observe() validate and hash
// their labels on every call (about a microsecond each, measured); so requests and served bytes are added to plain
// numbers instead, kept per route by a recorder made once per route (http/request-metrics.ts), and turned into
// Prometheus series only when scraped. A request then costs two map look-ups and a few additions.
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';

/** Latency buckets in seconds: redirects and cached reads answer in well under a millisecond, uploads in minutes. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The requests of one method, route pattern and status: a count, their total time and a histogram of it. */
class RequestCell {
  count = 0;
  seconds = 0;
  /** Requests per bucket (not cumulative); the last one past every bound (+Inf). */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);

  constructor(readonly labels: Record<'method' | 'route' | 'status_code', string>) {}

  add(seconds: number): void {
    this.count++;
    this.seconds += seconds;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    this.buckets[i]!++;
  }
}

/** Records one answered request of a route: its method, status and time taken (milliseconds). */
export type RouteRecorder = (method: string, statusCode: number, elapsedMs: number) => void;

interface MetricValue {
  labels: Record<string, string>;
  value: number;
  metricName?: string;
}

/**
 * A metric whose values are computed when scraped, in the shape prom-client's registry formats (what its own
 * metrics' get() answers).
 */
function scrapedMetric(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => MetricValue[],
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => undefined,
  };
  registry.registerMetric(metric as unknown as Metric);
}

/** A counter added to as a plain number; prom-client's Counter takes its value at each scrape. */
function plainCounter(registry: Registry, name: string, help: string): { value: number } {
  const total = { value: 0 };
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(total.value);
    },
  });
  return total;
}

export class ProcessMetrics {
  readonly registry = new Registry();
  private defaultMetrics = false;

  private readonly requestCells: RequestCell[] = [];
  /** One recorder per route pattern, whoever asks for it (the route's hook and the fast path share its series). */
  private readonly recorders = new Map<string, RouteRecorder>();

  /** Bytes of uploaded files (and chunks) received, whether kept or refused. */
  readonly uploadedBytes = plainCounter(
    this.registry,
    'chute_uploaded_bytes_total',
    'Bytes of uploaded files (and chunks) received by this process, whether kept or refused',
  );

  /** Answers given by the fast paths (http/serving/fast-path.ts, http/uploads/fast-path.ts) instead of the routes. */
  readonly fastPathAnswers = plainCounter(
    this.registry,
    'chute_fast_path_answers_total',
    'Plain redirects, small public files and plain uploads answered by the fast path of this process (also counted by route)',
  );

  /** Bytes of stored files sent whole. */
  readonly servedBytes = plainCounter(
    this.registry,
    'chute_served_bytes_total',
    'Bytes of stored files sent by this process in complete 200 and 206 answers (/raw, /u, owner downloads)',
  );

  readonly uploadsInFlight = new Gauge({
    name: 'chute_uploads_in_flight',
    help: 'Uploaded files (or chunks) whose bytes are streaming into storage in this process now',
    registers: [this.registry],
  });

  readonly jobFailures = new Counter({
    name: 'chute_job_failures_total',
    help: 'Failed attempts of background jobs run by this process, by kind (retried or failed for good)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  // Shared by every instance: read from the database at each scrape (services/statistics/prometheus.ts).
  readonly jobs = new Gauge({
    name: 'chute_jobs',
    help: 'Jobs in the durable queue by kind and state (from the database: the same on every instance)',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });

  readonly jobQueueDepth = new Gauge({
    name: 'chute_job_queue_depth',
    help: 'Jobs waiting in the durable queue (state queued; from the database)',
    registers: [this.registry],
  });

  readonly storageUsed = new Gauge({
    name: 'chute_storage_used_bytes',
    help: 'Bytes of every stored file (from the usage counters in the database)',
    registers: [this.registry],
  });

  readonly storedFiles = new Gauge({
    name: 'chute_stored_files',
    help: 'Stored files (from the usage counters in the database)',
    registers: [this.registry],
  });

  readonly users = new Gauge({
    name: 'chute_users',
    help: 'User accounts (from the database)',
    registers: [this.registry],
  });

  constructor() {
    scrapedMetric(
      this.registry,
      'chute_http_requests_total',
      'HTTP requests answered by this process, by method, route pattern and status code',
      'counter',
      () => this.requestCells.map((cell) => ({ labels: cell.labels, value: cell.count })),
    );
    scrapedMetric(
      this.registry,
      'chute_http_request_duration_seconds',
      'Time from receiving a request to the end of its answer, by method, route pattern and status code',
      'histogram',
      () => this.requestCells.flatMap(durationValues),
    );
  }

  /**
   * The recorder of one route pattern (the same one for every caller); the cells it uses (one per method and status)
   * are made once and kept.
   */
  routeRecorder(route: string): RouteRecorder {
    const known = this.recorders.get(route);
    if (known) return known;
    const cells = new Map<string, Map<number, RequestCell>>();
    const recorder: RouteRecorder = (method, statusCode, elapsedMs) => {
      let byStatus = cells.get(method);
      if (byStatus === undefined) {
        byStatus = new Map();
        cells.set(method, byStatus);
      }
      let cell = byStatus.get(statusCode);
      if (cell === undefined) {
        cell = new RequestCell({ method, route, status_code: String(statusCode) });
        byStatus.set(statusCode, cell);
        this.requestCells.push(cell);
      }
      cell.add(elapsedMs / 1000);
    };
    this.recorders.set(route, recorder);
    return recorder;
  }

  /** The text exposition of every metric; the process's default metrics (CPU, memory, event loop) from the first. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    if (!this.defaultMetrics) {
      // Started on the first scrape, so that an instance nobody scrapes runs no event-loop monitor.
      collectDefaultMetrics({ register: this.registry });
      leaveOutEmptyEventLoopDelay(this.registry);
      this.defaultMetrics = true;
    }
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** prom-client's gauges of the event loop's delay histogram, in the order it registers them. */
const EVENT_LOOP_DELAY_GAUGES = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map(
  (stat) => `nodejs_eventloop_lag_${stat}_seconds`,
);

/**
 * The histogram behind these gauges holds the delays sampled (every 10 ms) since the scrape before, and prom-client
 * resets it at each scrape. On the first scrape, or one within 10 ms of the last, it holds none: prom-client would
 * then write mean and stddev as `Nan` (a spelling the text format does not have) and min as 2^63 ns. Such a scrape
 * leaves the seven gauges out; an empty histogram is the one whose mean is NaN.
 */
function leaveOutEmptyEventLoopDelay(registry: Registry): void {
  const gauges = EVENT_LOOP_DELAY_GAUGES.map((name) => registry.getSingleMetric(name));
  const mean = gauges[EVENT_LOOP_DELAY_GAUGES.indexOf('nodejs_eventloop_lag_mean_seconds')];
  if (!mean) return; // a runtime without perf_hooks' monitorEventLoopDelay: prom-client registers none of them
  const readMean = mean.get.bind(mean);
  for (const gauge of gauges) {
    if (!gauge) continue;
    const read = gauge.get.bind(gauge);
    // Their values are set by the collect() of nodejs_eventloop_lag_seconds, which the registry reads first.
    gauge.get = async () => {
      const metric = await read();
      const empty = (await readMean()).values.some((v) => Number.isNaN(v.value));
      return empty ? { ...metric, values: [] } : metric;
    };
  }
}

/** A cell's histogram series: cumulative buckets up to +Inf, the sum and the count. */
function durationValues(cell: RequestCell): MetricValue[] {
  const name = 'chute_http_request_duration_seconds';
  const values: MetricValue[] = [];
  let cumulative = 0;
  DURATION_BUCKETS.forEach((bound, i) => {
    cumulative += cell.buckets[i]!;
    values.push({ labels: { ...cell.labels, le: String(bound) }, value: cumulative, metricName: `${name}_bucket` });
  });
  values.push({ labels: { ...cell.labels, le: '+Inf' }, value: cell.count, metricName: `${name}_bucket` });
  values.push({ labels: cell.labels, value: cell.seconds, metricName: `${name}_sum` });
  values.push({ labels: cell.labels, value: cell.count, metricName: `${name}_count` });
  return values;
}
