// A second Chute process for the queue tests: opens the shared data folder / database given in its environment,
// runs a job worker whose `hang` jobs never end, says "started <jobId>" on stdout when it takes one, and waits to be
// killed (SIGKILL: no shutdown, no hand-back, the lease simply stops being renewed).
import { loadConfig } from '../../src/config.js';
import { JobWorker } from '../../src/services/operations/job-worker.js';
import { createChute } from '../../src/server.js';

const chute = await createChute(loadConfig({ ...process.env, LOG_LEVEL: 'silent', PORT: '0' }), { startJobs: false });
const worker = new JobWorker(
  chute.ctx,
  {
    hang: async (_ctx, payload) => {
      process.stdout.write(`started ${(payload as { name: string }).name}\n`);
      await new Promise(() => undefined);
    },
  },
  { concurrency: 1, leaseMs: Number(process.env.CHILD_LEASE_MS ?? 1000), pollMs: 20 },
);
worker.start();
