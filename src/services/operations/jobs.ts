// Background work, two kinds. Periodic jobs (sweeps, cleanups, refreshes; the Jobs class): each runs on its interval,
// never overlapping itself; a failure is logged and the job tries again next time; tests call runNow() instead of
// waiting. And the durable job queue (below): one-off work kept in the database, run by services/operations/job-worker.ts.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database, Db, JobRow, JobState } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { runExclusive } from './leases.js';

interface Job {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
  /** Only one instance of the database runs it per interval (a lease, services/operations/leases.ts). */
  exclusive: boolean;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
}

/** Where exclusive jobs take their leases: the shared database and this process's holder name. */
export interface JobLeases {
  ctx: Pick<AppContext, 'db' | 'clock'>;
  holder: string;
}

/** Longest an exclusive periodic job may run before another instance may take it over. */
const EXCLUSIVE_MAX_RUN_MS = 10 * 60_000;

export class Jobs {
  private readonly jobs = new Map<string, Job>();
  private started = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly leases?: JobLeases,
  ) {}

  /**
   * Runs `run` every `intervalMs`. `exclusive`: with several instances on one database, one of them runs it per
   * interval (the others skip their turn); for sweeps that would otherwise do the same work N times at once.
   */
  every(name: string, intervalMs: number, run: () => Promise<unknown>, options: { exclusive?: boolean } = {}): void {
    if (this.jobs.has(name)) throw new Error(`job ${name} is already registered`);
    const job: Job = { name, intervalMs, run, exclusive: options.exclusive ?? false };
    this.jobs.set(name, job);
    if (this.started) this.schedule(job);
  }

  start(): void {
    this.started = true;
    for (const job of this.jobs.values()) this.schedule(job);
  }

  /** Runs a job once now on this instance, whatever its lease says (waiting for a run already under way first). */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job named ${name}`);
    await this.execute(job, job.run);
  }

  /** One scheduled turn of a job: an exclusive one runs only where its lease is taken. */
  async turn(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job named ${name}`);
    await this.execute(job, this.scheduledRun(job));
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const job of this.jobs.values()) clearInterval(job.timer);
    await Promise.all([...this.jobs.values()].map((j) => j.running));
  }

  private schedule(job: Job): void {
    const run = this.scheduledRun(job);
    job.timer = setInterval(() => void this.execute(job, run), job.intervalMs);
    job.timer.unref();
  }

  private scheduledRun(job: Job): () => Promise<unknown> {
    const leases = this.leases;
    if (!job.exclusive || !leases) return job.run;
    const options = { intervalMs: job.intervalMs, maxRunMs: Math.max(EXCLUSIVE_MAX_RUN_MS, job.intervalMs) };
    return () => runExclusive(leases.ctx, `periodic:${job.name}`, leases.holder, options, job.run);
  }

  private async execute(job: Job, run: () => Promise<unknown>): Promise<void> {
    if (job.running) await job.running;
    job.running = run()
      .then(() => undefined)
      .catch((err: unknown) => this.log.error({ err, job: job.name }, 'background job failed'))
      .finally(() => {
        job.running = undefined;
      });
    await job.running;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The durable job queue: one-off background work (thumbnails ...) kept in the `jobs` table, so that it survives a
// restart and several instances share it. A worker claims a job with one atomic statement and holds a lease on it;
// a job whose lease ran out (its worker died) is claimed again. Failures are retried with exponential backoff up to
// max_attempts, then the job stays `failed` with its last error for an admin to see, retry or delete.

/** How many times a job is tried before it stays failed. */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** The first retry waits this long, each later one twice as long as the one before ... */
export const BACKOFF_BASE_MS = 10_000;
/** ... up to this. */
export const BACKOFF_MAX_MS = 3_600_000;
/** Longest error text kept with a job. */
const MAX_ERROR_LENGTH = 2000;

/** A failure that another attempt cannot fix (a corrupt file): the job fails at once, without retries. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

export interface NewJob {
  kind: string;
  payload: unknown;
  maxAttempts?: number;
  /** Epoch ms before which the job is not run. */
  runAfter?: number;
}

/** Queues jobs; takes a transaction so that a job is queued together with what it is about (or not at all). */
export async function enqueueJobs(db: Kysely<Database>, now: number, jobs: NewJob[]): Promise<string[]> {
  if (jobs.length === 0) return [];
  const rows = jobs.map((job) => ({
    id: newId(),
    kind: job.kind,
    payload: JSON.stringify(job.payload ?? null),
    state: 'queued' as const,
    attempts: 0,
    max_attempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    last_error: null,
    run_after: job.runAfter ?? now,
    lease_owner: null,
    lease_expires_at: null,
    created_at: now,
    updated_at: now,
  }));
  // A few hundred rows per statement keeps within both engines' bound-parameter limits.
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + 500))
      .execute();
  return rows.map((r) => r.id);
}

/**
 * Claims the next due job for `owner`: a queued one whose run_after has come, or a running one whose lease expired.
 * One statement, so that two workers never get the same job: on PostgreSQL the row is chosen with FOR UPDATE SKIP
 * LOCKED (a concurrent claim skips it instead of waiting); SQLite runs one writing statement at a time.
 */
export async function claimJob(
  ctx: Pick<AppContext, 'db' | 'engine'>,
  owner: string,
  now: number,
  leaseMs: number,
  kinds?: readonly string[],
): Promise<JobRow | undefined> {
  return ctx.db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      lease_owner: owner,
      lease_expires_at: now + leaseMs,
      attempts: eb('attempts', '+', 1),
      updated_at: now,
    }))
    .where('id', '=', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where((w) =>
          w.or([
            w.and([w('state', '=', 'queued'), w('run_after', '<=', now)]),
            w.and([w('state', '=', 'running'), w('lease_expires_at', '<=', now)]),
          ]),
        )
        .$if(kinds !== undefined, (qb) => qb.where('kind', 'in', kinds as string[]))
        .orderBy('run_after')
        .limit(1)
        .$if(ctx.engine === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Extends a running job's lease; false when it is no longer this owner's (taken again after it expired). */
export async function renewLease(db: Db, id: string, owner: string, until: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ lease_expires_at: until })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a job this owner ran as done. */
export async function completeJob(db: Db, id: string, owner: string, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ state: 'done', lease_owner: null, lease_expires_at: null, last_error: null, updated_at: now })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** The wait before attempt `attempts + 1`. */
export function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/** Records a failed attempt: queued again after a backoff, or failed for good after the last attempt. */
export async function failJob(
  db: Db,
  job: Pick<JobRow, 'id' | 'attempts' | 'max_attempts'>,
  owner: string,
  error: unknown,
  now: number,
): Promise<'queued' | 'failed'> {
  const permanent = error instanceof PermanentJobError;
  const state = permanent || job.attempts >= job.max_attempts ? 'failed' : 'queued';
  const text = error instanceof Error ? error.message : String(error);
  await db
    .updateTable('jobs')
    .set({
      state,
      last_error: text.slice(0, MAX_ERROR_LENGTH),
      run_after: state === 'queued' ? now + backoffMs(job.attempts) : now,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: now,
    })
    .where('id', '=', job.id)
    .where('lease_owner', '=', owner)
    .execute();
  return state;
}

/** Gives a running job back to the queue (shutdown): its lease is cleared and the attempt is not counted. */
export async function handBackJob(db: Db, id: string, owner: string, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'queued',
      lease_owner: null,
      lease_expires_at: null,
      attempts: eb('attempts', '-', 1),
      run_after: now,
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

export interface JobCount {
  kind: string;
  state: JobState;
  count: number;
}

/** GET /api/server/jobs: how many jobs of each kind are in each state, and the failed ones (newest first). */
export async function jobOverview(db: Db, failedLimit = 100): Promise<{ counts: JobCount[]; failed: JobRow[] }> {
  const counts = await db
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['kind', 'state'])
    .orderBy('kind')
    .orderBy('state')
    .execute();
  const failed = await db
    .selectFrom('jobs')
    .selectAll()
    .where('state', '=', 'failed')
    .orderBy('updated_at', 'desc')
    .limit(failedLimit)
    .execute();
  return { counts: counts.map((c) => ({ ...c, count: Number(c.count) })), failed };
}

/** Queues a failed (or done) job again with fresh attempts; a queued or running one -> 9000; none -> 9002. */
export async function retryJob(db: Db, id: string, now: number): Promise<JobRow> {
  const job = await db
    .updateTable('jobs')
    .set({ state: 'queued', attempts: 0, run_after: now, updated_at: now })
    .where('id', '=', id)
    .where('state', 'in', ['failed', 'done'])
    .returningAll()
    .executeTakeFirst();
  if (job) return job;
  await assertJobExists(db, id);
  throw new ApiError(9000, 'only a failed or done job can be retried');
}

/** Deletes a job that is not running (a running one -> 9000; none -> 9002). */
export async function deleteJob(db: Db, id: string): Promise<void> {
  const result = await db.deleteFrom('jobs').where('id', '=', id).where('state', '!=', 'running').executeTakeFirst();
  if (Number(result.numDeletedRows) === 1) return;
  await assertJobExists(db, id);
  throw new ApiError(9000, 'a running job cannot be deleted; wait for it to end');
}

async function assertJobExists(db: Db, id: string): Promise<void> {
  const row = await db.selectFrom('jobs').select('id').where('id', '=', id).executeTakeFirst();
  if (!row) throw new ApiError(9002, 'no such job');
}

/** Removes done jobs finished before `before` (the periodic sweep): only failed ones stay for an admin. */
export async function purgeDoneJobs(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('state', '=', 'done')
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
