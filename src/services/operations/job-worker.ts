// Runs the jobs of the durable queue (services/operations/jobs.ts): claims due jobs up to its concurrency, keeps their leases
// fresh while they run, records each outcome, and on shutdown lets running jobs finish within a grace period and
// hands the others back to the queue. main.ts starts it through server.ts; tests drive it with runUntilIdle().
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { JobRow } from '../../db/schema/tables.js';
import { claimJob, completeJob, failJob, handBackJob, PermanentJobError, renewLease } from './jobs.js';

/** Does one job. Throws to fail the attempt (PermanentJobError: no retries). Stops early when `signal` aborts. */
export type JobHandler = (ctx: AppContext, payload: unknown, signal: AbortSignal) => Promise<void>;

export interface JobWorkerOptions {
  /** Jobs run at once by this worker. */
  concurrency: number;
  /** How long a claim lasts without renewal; renewed every third of it while the job runs. */
  leaseMs: number;
  /** Wait between looks at the queue while it is empty. */
  pollMs: number;
  /** A job still running after this long is aborted and its attempt fails ... */
  jobTimeoutMs: number;
  /** ... unless its kind has a limit of its own here (a user's export runs longer than a thumbnail). */
  kindTimeoutsMs?: Partial<Record<string, number>>;
}

export const DEFAULT_WORKER_OPTIONS: JobWorkerOptions = {
  concurrency: 2,
  leaseMs: 60_000,
  pollMs: 1_000,
  jobTimeoutMs: 5 * 60_000,
};

interface RunningJob {
  job: JobRow;
  abort: AbortController;
  done: Promise<void>;
  /** Set when shutdown gives the job back instead of recording its outcome. */
  handedBack: boolean;
}

export class JobWorker {
  /** Who holds the leases: the instance and this worker (a restarted process is a new owner). */
  readonly owner: string;
  private readonly options: JobWorkerOptions;
  private readonly running = new Map<string, RunningJob>();
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly handlers: Record<string, JobHandler>,
    options: Partial<JobWorkerOptions> = {},
  ) {
    this.options = { ...DEFAULT_WORKER_OPTIONS, ...options };
    this.owner = `${ctx.instanceId}:${randomBytes(6).toString('hex')}`;
  }

  /** Starts claiming jobs in the background. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.pollLoop().catch((err: unknown) => this.ctx.log.error({ err }, 'the job worker stopped'));
  }

  /** Looks at the queue now instead of at the next poll (after queuing work on this instance). */
  notify(): void {
    this.wake?.();
  }

  /** Claims and runs jobs until none is due; resolves when they have all ended. For tests and one-off runs. */
  async runUntilIdle(): Promise<number> {
    let ran = 0;
    for (;;) {
      const started = await this.fill();
      ran += started;
      if (this.running.size === 0) return ran;
      await Promise.race([...this.running.values()].map((r) => r.done));
    }
  }

  /**
   * Stops claiming; running jobs get `graceMs` to finish, the rest are aborted and handed back to the queue (their
   * lease cleared, the attempt not counted), so that another instance or the next start takes them at once.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!timedOut) return;
    for (const run of this.running.values()) {
      run.handedBack = true;
      run.abort.abort(new Error('the server is shutting down'));
    }
    await all();
  }

  private async pollLoop(): Promise<void> {
    while (!this.stopping) {
      let started = 0;
      try {
        started = await this.fill();
      } catch (err) {
        this.ctx.log.error({ err }, 'could not claim a job');
      }
      if (started > 0 || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs);
        timer.unref();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Claims due jobs while there is room; returns how many it started. */
  private async fill(): Promise<number> {
    let started = 0;
    while (!this.stopping && this.running.size < this.options.concurrency) {
      const now = this.ctx.clock.now();
      const job = await claimJob(this.ctx, this.owner, now, this.options.leaseMs, Object.keys(this.handlers));
      if (!job) break;
      this.begin(job);
      started++;
    }
    return started;
  }

  private begin(job: JobRow): void {
    const abort = new AbortController();
    const run: RunningJob = { job, abort, handedBack: false, done: Promise.resolve() };
    this.running.set(job.id, run);
    run.done = this.execute(run).finally(() => this.running.delete(job.id));
  }

  private async execute(run: RunningJob): Promise<void> {
    const { job, abort } = run;
    const { db, clock, log } = this.ctx;
    const renewEvery = Math.max(1, Math.floor(this.options.leaseMs / 3));
    const renewal = setInterval(() => {
      renewLease(db, job.id, this.owner, clock.now() + this.options.leaseMs)
        .then((held) => {
          if (!held) abort.abort(new Error('the job was taken by another worker after its lease expired'));
        })
        .catch((err: unknown) => log.warn({ err, job: job.id }, 'could not renew a job lease'));
    }, renewEvery);
    renewal.unref();
    const limitMs = this.options.kindTimeoutsMs?.[job.kind] ?? this.options.jobTimeoutMs;
    const timeout = setTimeout(() => abort.abort(new Error(`the job took longer than ${limitMs} ms`)), limitMs);
    timeout.unref();
    try {
      if (job.attempts > job.max_attempts) {
        throw new PermanentJobError(
          `abandoned: its worker stopped (lease expired) during ${job.max_attempts} attempts`,
        );
      }
      const handler = this.handlers[job.kind];
      if (!handler) throw new PermanentJobError(`no handler for jobs of kind ${job.kind}`);
      await handler(this.ctx, JSON.parse(job.payload) as unknown, abort.signal);
      // Finished after all (even when told to stop): recorded as done, unless another worker holds the job now.
      await completeJob(db, job.id, this.owner, clock.now());
    } catch (err) {
      if (run.handedBack) {
        await handBackJob(db, job.id, this.owner, clock.now()).catch((e: unknown) =>
          log.error({ err: e, job: job.id }, 'could not hand a job back'),
        );
        return;
      }
      this.ctx.metrics.jobFailures.labels(job.kind).inc();
      const state = await failJob(db, job, this.owner, err, clock.now()).catch((e: unknown) => {
        log.error({ err: e, job: job.id }, 'could not record a failed job');
        return 'unknown';
      });
      log.warn({ err, job: job.id, kind: job.kind, attempts: job.attempts, state }, 'a background job failed');
    } finally {
      clearInterval(renewal);
      clearTimeout(timeout);
    }
  }
}
