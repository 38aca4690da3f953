// Periodic background work (sweeps, cleanups, refreshes). Each job runs on its interval, never overlapping itself;
// a failure is logged and the job tries again next time. Tests call runNow() instead of waiting.
import type { FastifyBaseLogger } from 'fastify';

interface Job {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
}

export class Jobs {
  private readonly jobs = new Map<string, Job>();
  private started = false;

  constructor(private readonly log: FastifyBaseLogger) {}

  every(name: string, intervalMs: number, run: () => Promise<unknown>): void {
    if (this.jobs.has(name)) throw new Error(`job ${name} is already registered`);
    const job: Job = { name, intervalMs, run };
    this.jobs.set(name, job);
    if (this.started) this.schedule(job);
  }

  start(): void {
    this.started = true;
    for (const job of this.jobs.values()) this.schedule(job);
  }

  /** Runs a job once now (waiting for a run already under way first). */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job named ${name}`);
    await this.execute(job);
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const job of this.jobs.values()) clearInterval(job.timer);
    await Promise.all([...this.jobs.values()].map((j) => j.running));
  }

  private schedule(job: Job): void {
    job.timer = setInterval(() => void this.execute(job), job.intervalMs);
    job.timer.unref();
  }

  private async execute(job: Job): Promise<void> {
    if (job.running) await job.running;
    job.running = job
      .run()
      .then(() => undefined)
      .catch((err: unknown) => this.log.error({ err, job: job.name }, 'background job failed'))
      .finally(() => {
        job.running = undefined;
      });
    await job.running;
  }
}
