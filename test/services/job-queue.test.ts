// The durable job queue on SQLite and PostgreSQL: several instances sharing one queue run each job exactly once; a
// worker killed mid-job (a real process, SIGKILL) leaves a lease that expires, and the job is taken again and
// finishes; failures back off exponentially up to max_attempts; shutdown hands unfinished jobs back.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { JobWorker } from '../../src/services/operations/job-worker.js';
import { BACKOFF_BASE_MS, claimJob, enqueueJobs, PermanentJobError } from '../../src/services/operations/jobs.js';
import {
  forEachDatabase,
  startTestServer,
  useTestServer,
  withSharedState,
  type TestServer,
} from '../support/server.js';

async function jobRow(server: TestServer, id: string) {
  return server.ctx.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

forEachDatabase('job queue across instances', (engine) => {
  it('runs each job exactly once with two instances sharing one queue', async () => {
    await withSharedState(engine, async (shared) => {
      const a = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'one' } });
      const b = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'two' } });
      try {
        const runs: Array<{ job: number; by: string }> = [];
        const workerOf = (server: TestServer, by: string) =>
          new JobWorker(
            server.ctx,
            {
              count: async (_ctx, payload) => {
                runs.push({ job: (payload as { n: number }).n, by });
                await sleep(2);
              },
            },
            { concurrency: 4 },
          );
        const ids = await enqueueJobs(
          a.ctx.db,
          a.ctx.clock.now(),
          Array.from({ length: 80 }, (_, n) => ({ kind: 'count', payload: { n } })),
        );
        await Promise.all([workerOf(a, 'one').runUntilIdle(), workerOf(b, 'two').runUntilIdle()]);
        assert.deepEqual(
          runs.map((r) => r.job).sort((x, y) => x - y),
          Array.from({ length: 80 }, (_, n) => n),
          'every job ran, none twice',
        );
        assert.ok(runs.some((r) => r.by === 'one') && runs.some((r) => r.by === 'two'), 'both instances took jobs');
        const states = await a.ctx.db.selectFrom('jobs').select(['state', 'attempts']).where('id', 'in', ids).execute();
        assert.ok(states.every((s) => s.state === 'done' && s.attempts === 1));
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('takes a job again after the worker running it was killed and its lease ran out', async () => {
    await withSharedState(engine, async (shared) => {
      const server = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'survivor' } });
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, '../support/job-child.ts')],
        {
          env: {
            ...process.env,
            DATA_DIR: shared.dataDir,
            INSTANCE_ID: 'doomed',
            CHILD_LEASE_MS: '1500',
            ...(shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl } : {}),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      try {
        const [id] = await enqueueJobs(server.ctx.db, Date.now(), [{ kind: 'hang', payload: { name: 'victim' } }]);
        const lines = createInterface({ input: child.stdout! });
        for await (const line of lines) if (line === 'started victim') break;
        const claimed = await jobRow(server, id!);
        assert.equal(claimed.state, 'running');
        assert.match(claimed.lease_owner ?? '', /^doomed:/);
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));

        let ran = 0;
        const survivor = new JobWorker(server.ctx, {
          hang: async () => {
            ran++;
          },
        });
        assert.equal(await survivor.runUntilIdle(), 0, "not taken while the dead worker's lease still holds");
        const lease = (await jobRow(server, id!)).lease_expires_at!;
        await sleep(Math.max(0, lease - Date.now()) + 50);
        assert.equal(await survivor.runUntilIdle(), 1);
        assert.equal(ran, 1);
        const done = await jobRow(server, id!);
        assert.equal(done.state, 'done');
        assert.equal(done.attempts, 2, 'the killed attempt counts');
        assert.equal(done.lease_owner, null);
      } finally {
        child.kill('SIGKILL');
        await server.close();
      }
    });
  });
});

forEachDatabase('job queue', (engine) => {
  const clock = new ManualClock();
  const server = useTestServer({ engine, clock });

  it('retries a failing job with exponential backoff, then leaves it failed with its error', async () => {
    let calls = 0;
    const worker = new JobWorker(server().ctx, {
      flaky: async () => {
        calls++;
        throw new Error(`attempt ${calls} broke`);
      },
    });
    const [id] = await enqueueJobs(server().ctx.db, clock.now(), [{ kind: 'flaky', payload: null, maxAttempts: 3 }]);
    await worker.runUntilIdle();
    let row = await jobRow(server(), id!);
    assert.equal(row.state, 'queued');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, 'attempt 1 broke');
    assert.equal(row.run_after, clock.now() + BACKOFF_BASE_MS);
    assert.equal(await worker.runUntilIdle(), 0, 'not before its backoff');

    clock.advance(BACKOFF_BASE_MS);
    await worker.runUntilIdle();
    row = await jobRow(server(), id!);
    assert.equal(row.attempts, 2);
    assert.equal(row.run_after, clock.now() + 2 * BACKOFF_BASE_MS, 'the second wait is twice the first');

    clock.advance(2 * BACKOFF_BASE_MS);
    await worker.runUntilIdle();
    row = await jobRow(server(), id!);
    assert.equal(row.state, 'failed');
    assert.equal(row.attempts, 3);
    assert.equal(row.last_error, 'attempt 3 broke');
    clock.advance(3_600_000);
    assert.equal(await worker.runUntilIdle(), 0, 'a failed job stays failed');
    assert.equal(calls, 3);
  });

  it('fails a job at once on a PermanentJobError', async () => {
    const worker = new JobWorker(server().ctx, {
      hopeless: async () => {
        throw new PermanentJobError('cannot ever work');
      },
    });
    const [id] = await enqueueJobs(server().ctx.db, clock.now(), [{ kind: 'hopeless', payload: null }]);
    await worker.runUntilIdle();
    const row = await jobRow(server(), id!);
    assert.equal(row.state, 'failed');
    assert.equal(row.attempts, 1);
  });

  it('fails a job whose lease expired on its last attempt instead of running it again', async () => {
    const [id] = await enqueueJobs(server().ctx.db, clock.now(), [{ kind: 'once', payload: null, maxAttempts: 1 }]);
    const claimed = await claimJob(server().ctx, 'dead-worker', clock.now(), 1000, ['once']);
    assert.equal(claimed?.id, id);
    clock.advance(1001);
    let ran = false;
    const worker = new JobWorker(server().ctx, {
      once: async () => {
        ran = true;
      },
    });
    await worker.runUntilIdle();
    const row = await jobRow(server(), id!);
    assert.equal(ran, false);
    assert.equal(row.state, 'failed');
    assert.match(row.last_error ?? '', /lease expired/);
  });

  it('hands a running job back at shutdown when it does not finish within the grace period', async () => {
    let sawAbort = false;
    const worker = new JobWorker(
      server().ctx,
      {
        slow: (_ctx, _payload, signal) =>
          new Promise<void>((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              sawAbort = true;
              reject(signal.reason as Error);
            });
          }),
      },
      { pollMs: 10 },
    );
    const [id] = await enqueueJobs(server().ctx.db, clock.now(), [{ kind: 'slow', payload: null }]);
    worker.start();
    for (let i = 0; i < 200 && (await jobRow(server(), id!)).state !== 'running'; i++) await sleep(10);
    assert.equal((await jobRow(server(), id!)).state, 'running');
    await worker.stop(50);
    assert.ok(sawAbort, 'the job was told to stop');
    const row = await jobRow(server(), id!);
    assert.equal(row.state, 'queued');
    assert.equal(row.lease_owner, null);
    assert.equal(row.attempts, 0, 'a handed-back attempt is not counted');
    assert.equal(row.run_after, clock.now(), 'it can be taken again at once');
  });

  it('lets a running job finish within the grace period at shutdown', async () => {
    const worker = new JobWorker(server().ctx, { quick: () => sleep(100) }, { pollMs: 10 });
    const [id] = await enqueueJobs(server().ctx.db, clock.now(), [{ kind: 'quick', payload: null }]);
    worker.start();
    for (let i = 0; i < 200 && (await jobRow(server(), id!)).state !== 'running'; i++) await sleep(5);
    await worker.stop(5_000);
    assert.equal((await jobRow(server(), id!)).state, 'done');
  });
});
