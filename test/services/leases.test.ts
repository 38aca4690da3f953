// Periodic sweeps with several instances on one database: a lease in the database lets one instance at a time run
// each of them, once per interval; a holder that dies (its lease runs out) is replaced; a failed run frees the task.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { resumeDeletions } from '../../src/services/operations/unfinished-deletions.js';
import { runExclusive, takeLease } from '../../src/services/operations/leases.js';
import { forEachDatabase, startTestServer, withSharedState } from '../support/server.js';

const options = { intervalMs: 60_000, maxRunMs: 600_000 };

forEachDatabase('leases of periodic work', (engine) => {
  it('gives a task to one holder at a time, once per interval, and to another when the holder is gone', async () => {
    await withSharedState(engine, async (shared) => {
      const clock = new ManualClock(Date.UTC(2026, 10, 26));
      const a = await startTestServer({ engine, ...shared, clock, env: { INSTANCE_ID: 'one' } });
      const b = await startTestServer({ engine, ...shared, clock, env: { INSTANCE_ID: 'two' } });
      try {
        const runs: string[] = [];
        let release: () => void = () => undefined;
        const slow = new Promise<void>((resolve) => (release = resolve));
        // While one instance runs the task, the other's turn is skipped.
        const first = runExclusive(a.ctx, 'sweep', 'one', options, async () => {
          runs.push('one');
          await slow;
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(await runExclusive(b.ctx, 'sweep', 'two', options, async () => runs.push('two')), false);
        release();
        assert.equal(await first, true);
        // Done: nobody runs it again before the interval has (nearly) passed ...
        clock.advance(30_000);
        assert.equal(await runExclusive(b.ctx, 'sweep', 'two', options, async () => runs.push('two')), false);
        // ... then whoever comes first does.
        clock.advance(30_000);
        assert.equal(await runExclusive(b.ctx, 'sweep', 'two', options, async () => runs.push('two')), true);
        assert.deepEqual(runs, ['one', 'two']);

        // A holder that died mid-run keeps the task until its lease runs out, then another instance takes it.
        clock.advance(60_000);
        assert.equal(await takeLease(a.ctx.db, 'sweep', 'dead', clock.now(), clock.now() + options.maxRunMs), true);
        assert.equal(await runExclusive(b.ctx, 'sweep', 'two', options, async () => runs.push('two')), false);
        clock.advance(options.maxRunMs);
        assert.equal(await runExclusive(b.ctx, 'sweep', 'two', options, async () => runs.push('two')), true);

        // A failed run frees the task at once for the next turn of any instance.
        clock.advance(60_000);
        await assert.rejects(
          runExclusive(a.ctx, 'sweep', 'one', options, async () => {
            throw new Error('storage down');
          }),
          /storage down/,
        );
        assert.equal(await runExclusive(b.ctx, 'sweep', 'two', options, async () => runs.push('two')), true);
        assert.deepEqual(runs, ['one', 'two', 'two', 'two']);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('two instances starting their expiry sweeps at the same moment delete each expired file once', async () => {
    await withSharedState(engine, async (shared) => {
      const a = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'one' } });
      const b = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'two' } });
      try {
        const admin = await a.setup();
        for (let i = 0; i < 5; i++) {
          const form = new FormData();
          form.append('file', new Blob([`expiring ${i}`]), `e${i}.txt`);
          const res = await a.fetch('/api/upload', {
            method: 'POST',
            headers: { authorization: admin.token, 'x-service-deletes-at': '1s' },
            body: form,
          });
          assert.equal(res.status, 200);
        }
        await new Promise((resolve) => setTimeout(resolve, 1100));
        // Each instance's scheduled turn, at once: the lease lets one of them sweep.
        await Promise.all([a.chute.jobs.turn('delete-expired-files'), b.chute.jobs.turn('delete-expired-files')]);
        const lease = await a.ctx.db.selectFrom('leases').selectAll().execute();
        assert.equal(lease.length, 1);
        assert.match(lease[0]!.holder, /^(one|two):/);
        const left = await a.ctx.db.selectFrom('files').select('id').execute();
        assert.equal(left.length, 0, 'every expired file is gone');
        const usage = await a.json('GET', '/api/user/stats', { auth: admin.token });
        assert.equal(usage.status, 200);
        assert.equal(usage.body.filesUploaded, 0, 'the counters saw each file deleted once');
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it("at start-up, takes over the deletions' leases of this instance's killed process, not another instance's", async () => {
    await withSharedState(engine, async (shared) => {
      const server = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'three' } });
      try {
        const { db } = server.ctx;
        const now = Date.now();
        const holders = async () =>
          Object.fromEntries(
            (await db.selectFrom('leases').select(['name', 'holder', 'expires_at']).execute()).map((l) => [
              l.name,
              { holder: l.holder, held: Number(l.expires_at) > Date.now() },
            ]),
          );
        const hold = async (name: string, holder: string) => {
          await db.deleteFrom('leases').where('name', '=', name).execute();
          await db
            .insertInto('leases')
            .values({ name, holder, expires_at: now + 600_000 })
            .execute();
        };
        // A blob note for the drain to remove once it has the lease.
        const noteBlob = () =>
          db.insertInto('blob_deletions').values({ storage_key: 'gone/none', created_at: 0 }).execute();
        // Another instance's leases hold, at start-up too: nothing runs, the note stays.
        await hold('deletions', 'deletions:four:abc');
        await hold('blob-deletions', 'blobs:four:abc');
        await noteBlob();
        await resumeDeletions(server.ctx, { atStart: true });
        assert.deepEqual(await holders(), {
          deletions: { holder: 'deletions:four:abc', held: true },
          'blob-deletions': { holder: 'blobs:four:abc', held: true },
        });
        // This instance's previous process's leases: held for a periodic run, taken over at start-up (then given back
        // at the end of the run), and the note is worked off.
        await hold('deletions', 'deletions:three:dead');
        await hold('blob-deletions', 'blobs:three:dead');
        await resumeDeletions(server.ctx, { atStart: false });
        assert.equal((await holders()).deletions!.holder, 'deletions:three:dead');
        await resumeDeletions(server.ctx, { atStart: true });
        const after = await holders();
        for (const [name, prefix] of [
          ['deletions', 'deletions:three:'],
          ['blob-deletions', 'blobs:three:'],
        ] as const) {
          assert.ok(after[name]!.holder.startsWith(prefix) && !after[name]!.holder.endsWith(':dead'), name);
          assert.equal(after[name]!.held, false, `${name} given back`);
        }
        assert.deepEqual(await db.selectFrom('blob_deletions').select('storage_key').execute(), []);
      } finally {
        await server.chute.close();
      }
    });
  });
});
