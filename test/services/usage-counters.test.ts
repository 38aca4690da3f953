// Stored usage counters (db/schema/usage-counters.ts, services/statistics/usage.ts): after any sequence of uploads, deletes (one, in
// bulk, by the last allowed view, with their owner), favourites, type changes, views with and without a limit, short
// URLs made, followed and deleted, every counter equals a fresh count(*)/sum() of the tables; also with the
// operations running concurrently on PostgreSQL, and for a database that had files before the counters existed.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { flushViews } from '../../src/services/serving/view-counts.js';
import { rebuildUsageCounters, usageCounterDrift, usageOfOne } from '../../src/services/statistics/usage.js';
import { makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { insertFileRows } from '../support/file-rows.js';
import { forEachDatabase, startTestServer, useTestServer, type TestServer, type TestUser } from '../support/server.js';
import { oldUserRow, withDatabaseBefore } from '../support/old-database.js';
import { uploadOne } from '../support/uploads.js';

/** A small seeded generator (mulberry32), so that a failing sequence can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ['text/plain', 'image/png', 'application/pdf', 'video/mp4'];

interface Owned {
  user: TestUser;
  files: Array<{ id: string; name: string }>;
  urls: Array<{ id: string; code: string }>;
}

/** One random operation of `who` (or, for deletions of an account, of the admin). */
async function randomStep(server: TestServer, admin: TestUser, people: Owned[], next: () => number): Promise<void> {
  const pick = <T>(list: T[]): T | undefined =>
    list.length === 0 ? undefined : list[Math.floor(next() * list.length)];
  const who = pick(people)!;
  const auth = who.user.token;
  const roll = next();
  const file = pick(who.files);
  const url = pick(who.urls);
  if (roll < 0.25 || !file) {
    const limited = next() < 0.2;
    const type = pick(TYPES)!;
    const uploaded = await uploadOne(server, auth, 'x'.repeat(1 + Math.floor(next() * 3000)), {
      name: `f.${type.split('/')[1]}`,
      type,
      headers: limited ? { 'x-service-max-views': String(1 + Math.floor(next() * 2)) } : {},
    });
    who.files.push({ id: uploaded.id, name: uploaded.name });
  } else if (roll < 0.35) {
    await server.json('DELETE', `/api/user/files/${file.id}`, { auth });
    who.files.splice(who.files.indexOf(file), 1);
  } else if (roll < 0.4) {
    const some = who.files.slice(0, 3);
    await server.json('DELETE', '/api/user/files/transaction', { auth, body: { files: some.map((f) => f.id) } });
    who.files.splice(0, some.length);
  } else if (roll < 0.5) {
    await server.json('PATCH', `/api/user/files/${file.id}`, { auth, body: { favorite: next() < 0.6 } });
  } else if (roll < 0.55) {
    await server.json('PATCH', `/api/user/files/${file.id}`, { auth, body: { type: pick(TYPES) } });
  } else if (roll < 0.7) {
    // A view: counted in memory, or (with a limit) written at once, and the last one deletes the file.
    const res = await server.fetch(`/raw/${file.name}`);
    await res.arrayBuffer();
  } else if (roll < 0.8 || !url) {
    const limited = next() < 0.3;
    const made = await server.json('POST', '/api/user/urls', {
      auth,
      body: { destination: 'https://example.com/' },
      headers: limited ? { 'x-service-max-views': String(1 + Math.floor(next() * 2)) } : {},
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    who.urls.push({ id: made.body.id, code: made.body.code });
  } else if (roll < 0.9) {
    const res = await server.fetch(`/go/${url.code}`);
    await res.arrayBuffer();
  } else if (roll < 0.97) {
    await server.json('DELETE', `/api/user/urls/${url.id}`, { auth });
    who.urls.splice(who.urls.indexOf(url), 1);
  } else if (people.length > 1) {
    // The account goes, its files with it or left behind without an owner.
    const res = await server.json('DELETE', `/api/users/${who.user.id}`, {
      auth: admin.token,
      body: { delete: next() < 0.5 },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    people.splice(people.indexOf(who), 1);
  }
}

async function assertNoDrift(server: TestServer, when: string): Promise<void> {
  await flushViews(server.ctx);
  assert.deepEqual(await usageCounterDrift(server.ctx.db), [], when);
}

forEachDatabase('stored usage counters', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('counter-admin', 'counter-admin-password');
  });

  it('equal a fresh count after every step of random sequences of operations', async () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const people: Owned[] = [];
      for (let i = 0; i < 3; i++) people.push({ user: await makeUser(server()), files: [], urls: [] });
      for (let step = 0; step < 60; step++) {
        await randomStep(server(), admin, people, next);
        if (step % 10 === 9) await assertNoDrift(server(), `seed ${seed}, step ${step}`);
      }
      await assertNoDrift(server(), `seed ${seed}, end`);
    }
  });

  it('take views without a limit only with the batched view writes, views under a limit as written', async () => {
    const alice = await makeUser(server());
    const free = await uploadOne(server(), alice.token, 'free');
    const limited = await uploadOne(server(), alice.token, 'limited', { headers: { 'x-service-max-views': '2' } });
    await flushViews(server().ctx);
    const before = await usageOfOne(server().ctx.db, alice.id);
    for (const name of [free.name, free.name, limited.name]) await (await server().fetch(`/raw/${name}`)).arrayBuffer();
    // Neither kind of view wrote the owner's row yet (no shared row on the read path) ...
    assert.equal((await usageOfOne(server().ctx.db, alice.id)).fileViews, before.fileViews);
    // ... the flush moves all three, and the stats answer them.
    await flushViews(server().ctx);
    assert.equal((await usageOfOne(server().ctx.db, alice.id)).fileViews, before.fileViews + 3);
    const stats = await server().json('GET', '/api/user/stats', { auth: alice.token });
    assert.equal(stats.body.views, 3);
    // The last allowed view deletes the file; its views leave the totals with it.
    await (await server().fetch(`/raw/${limited.name}`)).arrayBuffer();
    await assertNoDrift(server(), 'after the last view');
    const after = await server().json('GET', '/api/user/stats', { auth: alice.token });
    assert.equal(after.body.views, 2);
    assert.equal(after.body.filesUploaded, 1);
  });

  it('say where a counter drifted, and a rebuild sets it right', async () => {
    const bob = await makeUser(server());
    await uploadOne(server(), bob.token, 'twelve bytes');
    await server().ctx.db.updateTable('usage_counters').set({ files: 40 }).where('owner', '=', bob.id).execute();
    const drift = await usageCounterDrift(server().ctx.db);
    assert.deepEqual(drift, [{ owner: bob.id, counter: 'files', stored: 40, counted: 1 }]);
    await rebuildUsageCounters(server().ctx.db);
    assert.deepEqual(await usageCounterDrift(server().ctx.db), []);
    assert.equal((await usageOfOne(server().ctx.db, bob.id)).files, 1);
  });

  it('answer the unfiltered total of a listing and the favourites', async () => {
    const carol = await makeUser(server());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await uploadOne(server(), carol.token, `file ${i}`)).id);
    await server().json('PATCH', `/api/user/files/${ids[0]}`, { auth: carol.token, body: { favorite: true } });
    const all = await server().json('GET', '/api/user/files?page=1&perpage=2', { auth: carol.token });
    assert.equal(all.body.total, 3);
    assert.equal(all.body.pages, 2);
    const favourites = await server().json('GET', '/api/user/files?page=1&favorite=true', { auth: carol.token });
    assert.equal(favourites.body.total, 1);
    const others = await server().json('GET', '/api/user/files?page=1&favorite=false', { auth: carol.token });
    assert.equal(others.body.total, 2);
  });
});

describe('stored usage counters under concurrent writes', () => {
  it('equal a fresh count after operations of many clients at once [postgres]', async (t) => {
    if (!process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
    const server = await startTestServer({ engine: 'postgres', env: NO_RATE_LIMIT });
    try {
      const admin = await server.setup('busy-admin', 'busy-admin-password');
      const people: Owned[] = [];
      for (let i = 0; i < 6; i++) people.push({ user: await makeUser(server), files: [], urls: [] });
      // Each client works on its own account and the shared ones, 8 at a time.
      await Promise.all(
        Array.from({ length: 8 }, async (_, client) => {
          const next = random(100 + client);
          const mine: Owned[] = [people[client % people.length]!];
          for (let step = 0; step < 30; step++) {
            // No account deletions here: another client may be using it.
            if (next() < 0.03) continue;
            await randomStep(server, admin, mine, next);
          }
        }),
      );
      await assertNoDrift(server, 'after the concurrent clients');
    } finally {
      await server.close();
    }
  });
});

describe('stored usage counters on a database from before them', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`are counted from the files and URLs already there [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withDatabaseBefore(
        engine,
        '0019',
        async (db) => {
          await db.insertInto('users').values(oldUserRow('u-old', 'olduser')).execute();
          await insertFileRows({ db }, [
            { id: 'f-1', user_id: 'u-old', size: 100, views: 7, favorite: 1, type: 'image/png' },
            { id: 'f-2', user_id: 'u-old', size: 50, views: 1, type: 'text/plain' },
            { id: 'f-3', user_id: null, size: 5, type: 'text/plain' },
          ]);
          const now = Date.now();
          await sql`insert into urls (id, user_id, code, destination, views, created_at, updated_at)
            values ('url-1', 'u-old', 'abc', 'https://example.com/', 9, ${now}, ${now})`.execute(db);
        },
        async (server) => {
          assert.deepEqual(await usageOfOne(server.ctx.db, 'u-old'), {
            files: 2,
            bytes: 150,
            fileViews: 8,
            favorites: 1,
            urls: 1,
            urlViews: 9,
          });
          assert.equal((await usageOfOne(server.ctx.db, '')).files, 1);
          assert.deepEqual(await usageCounterDrift(server.ctx.db), []);
        },
      );
    });
  }
});
