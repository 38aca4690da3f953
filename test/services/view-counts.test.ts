// Views of files and short URLs without a view limit are counted in memory and written in batches
// (src/services/serving/view-counts.ts): exact after a flush, after a graceful stop, and with two instances on one database.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { flushViews } from '../../src/services/serving/view-counts.js';
import {
  createPostgresDatabase,
  ENGINES,
  forEachDatabase,
  startTestServer,
  useTestServer,
  withSharedState,
  type TestServer,
  type TestUser,
} from '../support/server.js';
import { uploadOne } from '../support/uploads.js';
import { makeUrl } from '../support/factory.js';

const uploadText = (server: TestServer, token: string, text: string) =>
  uploadOne(server, token, text, { name: 'views.txt', type: 'text/plain' });

/** `count` GETs of `pathname`, `parallel` at a time, each read to its end. */
async function hit(server: TestServer, pathname: string, count: number, parallel = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++;
        const res = await server.fetch(pathname);
        assert.ok(res.status === 200 || res.status === 302, `${pathname}: ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
}

const storedViews = async (server: TestServer, table: 'files' | 'urls', id: string) =>
  (await server.ctx.db.selectFrom(table).select('views').where('id', '=', id).executeTakeFirstOrThrow()).views;

forEachDatabase('view counts', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    user = await server().setup('viewer', 'viewer-password');
  });

  it('a view is counted in memory: the API shows it at once, the record gets it with the next flush', async () => {
    const file = await uploadText(server(), user.token, 'seen');
    await hit(server(), `/raw/${file.name}`, 25);
    assert.equal(await storedViews(server(), 'files', file.id), 0, 'no write on the read path');
    const shown = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
    assert.equal(shown.body.views, 25);
    await server().chute.jobs.runNow('flush-views');
    assert.equal(await storedViews(server(), 'files', file.id), 25);
    assert.equal(server().ctx.views.of('files', file.id), 0);
    const again = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
    assert.equal(again.body.views, 25);
  });

  it('redirects of a URL without a view limit are counted the same way', async () => {
    const url = await makeUrl(server(), user, { destination: 'https://example.com/views' });
    await hit(server(), `/go/${url.code}`, 30);
    assert.equal(await storedViews(server(), 'urls', url.id), 0);
    assert.equal((await server().json('GET', `/api/user/urls/${url.id}`, { auth: user.token })).body.views, 30);
    await flushViews(server().ctx);
    assert.equal(await storedViews(server(), 'urls', url.id), 30);
  });

  it('the periodic flush waits for a bulk statement of the batch writer with the event loop free, then writes', async () => {
    const file = await uploadText(server(), user.token, 'while deleting');
    await hit(server(), `/raw/${file.name}`, 3);
    const { ctx } = server();
    await sql`create table if not exists flush_scratch (n integer)`.execute(ctx.db);
    // A statement that holds the write lock for a while, on the batch writer (its own thread and connection on
    // SQLite), as a bulk deletion's batch does.
    const bulk = ctx.batches.execute({
      compile: () =>
        CompiledQuery.raw(
          'insert into flush_scratch with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) ' +
            'select x from c',
        ),
    });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the thread has the lock by now
    const started = performance.now();
    let timerLate = Infinity;
    setTimeout(() => (timerLate = performance.now() - started - 20), 20);
    await server().chute.jobs.runNow('flush-views');
    await bulk;
    const took = performance.now() - started;
    if (engine === 'sqlite') {
      // Before: the flush waited in SQLite's busy handler, on the event loop, until the statement ended.
      assert.ok(timerLate < took / 2, `a 20 ms timer ran ${timerLate.toFixed(0)} ms late in ${took.toFixed(0)} ms`);
    }
    assert.equal(await storedViews(server(), 'files', file.id), 3);
    await sql`drop table flush_scratch`.execute(ctx.db);
  });

  it('the statistics count the views not yet written', async () => {
    const file = await uploadText(server(), user.token, 'stats');
    const before = (await server().json('GET', '/api/user/stats', { auth: user.token })).body.views as number;
    await hit(server(), `/raw/${file.name}`, 7);
    const afterViews = (await server().json('GET', '/api/user/stats', { auth: user.token })).body.views as number;
    assert.equal(afterViews - before, 7);
  });

  it('a flush that fails keeps the counts for the next one', async () => {
    const file = await uploadText(server(), user.token, 'retry');
    await hit(server(), `/raw/${file.name}`, 5);
    const { db } = server().ctx;
    await sql`alter table files rename to files_away`.execute(db);
    try {
      await assert.rejects(flushViews(server().ctx));
      assert.equal(server().ctx.views.of('files', file.id), 5);
    } finally {
      await sql`alter table files_away rename to files`.execute(db);
    }
    await flushViews(server().ctx);
    assert.equal(await storedViews(server(), 'files', file.id), 5);
  });
});

for (const engine of ENGINES) {
  it(`[${engine}] 2,000 views then a graceful stop: the stored count is exactly 2,000`, async () => {
    await withSharedState(engine, async (shared) => {
      const first = await startTestServer({ engine, ...shared });
      const owner = await first.setup('stopper', 'stopper-password');
      const file = await uploadText(first, owner.token, 'stop');
      await hit(first, `/raw/${file.name}`, 2_000, 32);
      await first.close();
      const second = await startTestServer({ engine, ...shared });
      try {
        assert.equal(await storedViews(second, 'files', file.id), 2_000);
      } finally {
        await second.close();
      }
    });
  });
}

if (ENGINES.includes('postgres')) {
  let pg: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    // Two instances as behind a load balancer: one database, one uploads folder, each its own INSTANCE_ID.
    pg = await createPostgresDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-views-two-'));
    const instance = (id: string) =>
      startTestServer({ engine: 'postgres', databaseUrl: pg.url, dataDir, env: { INSTANCE_ID: id } });
    a = await instance('view-a');
    b = await instance('view-b');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await pg?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('[postgres] two instances count views of one file and one URL; the stored counts are their sum', async () => {
    const owner = await a.setup('two', 'two-password');
    const file = await uploadText(a, owner.token, 'both');
    const url = await makeUrl(a, owner, { destination: 'https://example.com/views' });
    await Promise.all([
      hit(a, `/raw/${file.name}`, 300),
      hit(b, `/raw/${file.name}`, 200),
      hit(a, `/go/${url.code}`, 120),
      hit(b, `/go/${url.code}`, 80),
    ]);
    // Both flush at once, in their own transactions.
    await Promise.all([flushViews(a.ctx), flushViews(b.ctx)]);
    assert.equal(await storedViews(a, 'files', file.id), 500);
    assert.equal(await storedViews(b, 'urls', url.id), 200);
  });
}
