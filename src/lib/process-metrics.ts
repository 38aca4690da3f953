// This process's own Prometheus metrics (prom-client), scraped at /metrics (routes/metrics.ts): requests by route,
// bytes uploaded and served, uploads in flight, job failures. One registry per Chute (a test builds many in one
// process); the figures every instance shares (queue depth, storage used) are read from the database at scrape time
// (services/prometheus.ts) and set on the gauges here.
//
// Recording sits on the hot path (every redirect, every /raw): a request is recorded through a recorder made once per
// route (http/request-metrics.ts), which keeps the labelled children it has used, so a request costs two map look-ups,
// a counter increment and a histogram observation.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets in seconds: redirects and cached reads answer in well under a millisecond, uploads in minutes. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

interface RequestChildren {
  count: { inc(): void };
  duration: { observe(seconds: number): void };
}

/** Records one answered request of a route: its method, status and time taken (milliseconds). */
export type RouteRecorder = (method: string, statusCode: number, elapsedMs: number) => void;

export class ProcessMetrics {
  readonly registry = new Registry();
  private defaultMetrics = false;

  readonly httpRequests = new Counter({
    name: 'chute_http_requests_total',
    help: 'HTTP requests answered by this process, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'chute_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly uploadedBytes = new Counter({
    name: 'chute_uploaded_bytes_total',
    help: 'Bytes of uploaded files (and chunks) received by this process, whether kept or refused',
    registers: [this.registry],
  });

  readonly servedBytes = new Counter({
    name: 'chute_served_bytes_total',
    help: 'Bytes of stored files sent by this process in complete 200 and 206 answers (/raw, /u, owner downloads)',
    registers: [this.registry],
  });

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

  // Shared by every instance: read from the database at each scrape (services/prometheus.ts).
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

  /** A recorder for one route pattern; the labelled children it uses are made once and kept. */
  routeRecorder(route: string): RouteRecorder {
    const children = new Map<string, Map<number, RequestChildren>>();
    return (method, statusCode, elapsedMs) => {
      let byStatus = children.get(method);
      if (byStatus === undefined) {
        byStatus = new Map();
        children.set(method, byStatus);
      }
      let child = byStatus.get(statusCode);
      if (child === undefined) {
        const labels = { method, route, status_code: String(statusCode) };
        child = { count: this.httpRequests.labels(labels), duration: this.httpDuration.labels(labels) };
        byStatus.set(statusCode, child);
      }
      child.count.inc();
      child.duration.observe(elapsedMs / 1000);
    };
  }

  /** The text exposition of every metric; the process's default metrics (CPU, memory, event loop) from the first. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    if (!this.defaultMetrics) {
      // Started on the first scrape, so that an instance nobody scrapes runs no event-loop monitor.
      collectDefaultMetrics({ register: this.registry });
      this.defaultMetrics = true;
    }
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
