// GET /api/stats: the statistics snapshots kept every metricsInterval (services/statistics/snapshots.ts), in Zipline's Metric
// shape; each of its error codes (3001 metrics off, 3000 admin-only, 1058 from after to, 1059 from in the future);
// one snapshot per interval slot, also with two instances sharing the database. Snapshots are taken by calling the
// service with a clock the test moves, never by waiting.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import {
  currentMetricData,
  EARLY_SNAPSHOTS,
  takeEarlySnapshot,
  takeMetricsSnapshot,
  takeMetricsSnapshots,
} from '../../../src/services/statistics/snapshots.js';
import { assertError } from '../../support/api-errors.js';
import { makeUrl, makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import {
  forEachDatabase,
  startTestServer,
  useTestServer,
  withSharedState,
  type TestUser,
} from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
// A slot boundary, so that advancing by the interval always lands in the next slot.
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

forEachDatabase('GET /api/stats', (engine) => {
  const clock = new ManualClock(START);
  const server = useTestServer({ engine, clock, env: { ...NO_RATE_LIMIT, METRICS_INTERVAL: '30m' } });
  let root: TestUser;
  let admin: TestUser;
  let alice: TestUser;

  before(async () => {
    root = await server().setup('root', 'root-password');
    admin = await makeUser(server(), { username: 'admin', role: 'ADMIN' });
    alice = await makeUser(server(), { username: 'alice' });
  });

  const settings = async (patch: Record<string, unknown>) => {
    const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body: patch });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  it('answers a series of snapshots, one per interval slot, newest first, read from the stored counters', async () => {
    await uploadOne(server(), alice.token, 'a'.repeat(10), { name: 'a.txt', type: 'text/plain' });
    await uploadOne(server(), admin.token, 'b'.repeat(20), { name: 'b.png', type: 'image/png' });
    assert.equal(await takeMetricsSnapshot(server().ctx), true);
    // The same slot has its snapshot: nothing more, however often the job looks.
    clock.advance(29 * MINUTE);
    assert.equal(await takeMetricsSnapshot(server().ctx), false);

    clock.advance(MINUTE);
    await uploadOne(server(), alice.token, 'c'.repeat(5), { name: 'c.txt', type: 'text/plain' });
    await makeUrl(server(), alice, { destination: 'https://example.com/x' });
    assert.equal(await takeMetricsSnapshot(server().ctx), true);

    const res = await server().json('GET', '/api/stats', { auth: admin.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.length, 2);
    const [newest, oldest] = res.body;
    assert.equal(newest.createdAt, new Date(START + 30 * MINUTE).toISOString());
    assert.equal(oldest.createdAt, new Date(START).toISOString());
    assert.equal(newest.updatedAt, newest.createdAt);
    assert.equal(typeof newest.id, 'string');
    assert.deepEqual(oldest.data, {
      users: 3,
      files: 2,
      fileViews: 0,
      urls: 0,
      urlViews: 0,
      storage: 30,
      filesUsers: [
        { username: 'admin', sum: 1, storage: 20, views: 0 },
        { username: 'alice', sum: 1, storage: 10, views: 0 },
      ],
      urlsUsers: [],
      types: [
        { type: 'image/png', sum: 1 },
        { type: 'text/plain', sum: 1 },
      ],
    });
    assert.deepEqual(newest.data, {
      users: 3,
      files: 3,
      fileViews: 0,
      urls: 1,
      urlViews: 0,
      storage: 35,
      filesUsers: [
        { username: 'alice', sum: 2, storage: 15, views: 0 },
        { username: 'admin', sum: 1, storage: 20, views: 0 },
      ],
      urlsUsers: [{ username: 'alice', sum: 1, views: 0 }],
      types: [
        { type: 'text/plain', sum: 2 },
        { type: 'image/png', sum: 1 },
      ],
    });
    // The snapshot equals what a fresh read of the counters says now.
    assert.deepEqual(newest.data, await currentMetricData(server().ctx));
  });

  it("shows other users' names and figures to admins only", async () => {
    const res = await server().json('GET', '/api/stats', { auth: alice.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 2);
    for (const metric of res.body) {
      assert.deepEqual(metric.data.filesUsers, []);
      assert.deepEqual(metric.data.urlsUsers, []);
      assert.ok(metric.data.files > 0);
    }
  });

  it('filters by from and to, and all=true answers every snapshot', async () => {
    const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    const only = (query: string) =>
      server()
        .json('GET', `/api/stats?${query}`, { auth: admin.token })
        .then((res) => {
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return (res.body as Array<{ createdAt: string }>).map((m) => m.createdAt);
        });
    const first = new Date(START).toISOString();
    const second = new Date(START + 30 * MINUTE).toISOString();
    assert.deepEqual(await only(`from=${at(START)}&to=${at(START + MINUTE)}`), [first]);
    assert.deepEqual(await only(`from=${at(START + MINUTE)}`), [second]);
    // Nine days on, the default range (the last 7 days) is empty; all=true ignores it.
    clock.advance(9 * DAY);
    assert.deepEqual(await only(''), []);
    assert.deepEqual(await only('all=true'), [second, first]);
    assert.deepEqual(await only(`all=true&from=${at(START + 3 * DAY)}`), [second, first]);
    clock.set(START + 31 * MINUTE);
  });

  it('1058 when from is after to; 1059 when from is in the future; a date that is none -> 1000', async () => {
    const now = clock.now();
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    assertError(
      await server().json('GET', `/api/stats?from=${iso(now - DAY)}&to=${iso(now - 2 * DAY)}`, { auth: admin.token }),
      400,
      1058,
    );
    assertError(
      await server().json('GET', `/api/stats?from=${iso(now + DAY)}&to=${iso(now + 2 * DAY)}`, { auth: admin.token }),
      400,
      1059,
    );
    assertError(await server().json('GET', '/api/stats?from=yesterday', { auth: admin.token }), 400, 1000);
  });

  it('3000 for non-admins when metricsAdminOnly is on (2002 without credentials)', async () => {
    assertError(await server().json('GET', '/api/stats'), 401, 2002);
    await settings({ metricsAdminOnly: true });
    assertError(await server().json('GET', '/api/stats', { auth: alice.token }), 403, 3000);
    assert.equal((await server().json('GET', '/api/stats', { auth: admin.token })).status, 200);
    await settings({ metricsAdminOnly: false });
    assert.equal((await server().json('GET', '/api/stats', { auth: alice.token })).status, 200);
  });

  it('3001 for everyone when metricsEnabled is off, and no snapshot is taken then', async () => {
    await settings({ metricsEnabled: false });
    assertError(await server().json('GET', '/api/stats', { auth: admin.token }), 403, 3001);
    assertError(await server().json('GET', '/api/stats', { auth: alice.token }), 403, 3001);
    clock.advance(60 * MINUTE);
    assert.equal(await takeMetricsSnapshot(server().ctx), false);
    await settings({ metricsEnabled: true });
    const res = await server().json('GET', '/api/stats?all=true', { auth: admin.token });
    assert.equal(res.body.length, 2);
  });

  it('refuses a metricsInterval outside 1m..7d (1022)', async () => {
    for (const metricsInterval of ['30s', '8d', 'soon']) {
      const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { metricsInterval } });
      assertError(res, 400, 1022);
    }
  });
});

forEachDatabase('statistics snapshots with two instances', (engine) => {
  it('keeps exactly one snapshot per slot when two instances take it at once', async () => {
    await withSharedState(engine, async (shared) => {
      const clock = new ManualClock(START);
      const options = { engine, clock, ...shared };
      const a = await startTestServer({ ...options, env: { INSTANCE_ID: 'one' } });
      const b = await startTestServer({ ...options, env: { INSTANCE_ID: 'two' } });
      try {
        for (let slot = 0; slot < 5; slot++) {
          const kept = await Promise.all([takeMetricsSnapshot(a.ctx), takeMetricsSnapshot(b.ctx)]);
          assert.equal(kept.filter(Boolean).length, 1, `slot ${slot}: ${JSON.stringify(kept)}`);
          clock.advance(30 * MINUTE);
        }
        const rows = await a.ctx.db.selectFrom('metrics').select('slot').orderBy('slot').execute();
        assert.deepEqual(
          rows.map((r) => Number(r.slot)),
          [0, 1, 2, 3, 4].map((i) => START + i * 30 * MINUTE),
        );
      } finally {
        await b.close();
        await a.close();
      }
    });
  });
});

forEachDatabase('statistics from the first minute', (engine) => {
  // Ten minutes into a 30-minute slot: a server started then, not at a boundary.
  const clock = new ManualClock(START + 10 * MINUTE);
  const server = useTestServer({ engine, clock, env: { ...NO_RATE_LIMIT, METRICS_INTERVAL: '30m' } });
  let root: TestUser;

  before(async () => {
    root = await server().setup('root', 'root-password');
  });

  const series = async () => (await server().json('GET', '/api/stats', { auth: root.token })).body;
  const schedule = async () =>
    (await server().json('GET', '/api/server/stats', { auth: root.token })).body.snapshots as {
      enabled: boolean;
      nextAt: string | null;
      early: boolean;
      intervalMs: number;
    };

  it('a new server gets a snapshot at start and one after its first uploads, not at the next slot', async () => {
    assert.deepEqual(await schedule(), {
      enabled: true,
      intervalMs: 30 * MINUTE,
      nextAt: new Date(START + 10 * MINUTE).toISOString(),
      early: true,
    });
    // The look at start: the slot's snapshot, at zero files.
    assert.equal(await takeMetricsSnapshots(server().ctx), true);
    assert.equal((await schedule()).nextAt, new Date(START + 30 * MINUTE).toISOString());
    // Nothing changed: the next look keeps nothing.
    clock.advance(MINUTE);
    assert.equal(await takeMetricsSnapshots(server().ctx), false);

    await uploadOne(server(), root.token, 'x'.repeat(1000), { name: 'first.txt', type: 'text/plain' });
    clock.advance(MINUTE);
    assert.equal(await takeMetricsSnapshots(server().ctx), true);
    const [newest, oldest] = await series();
    assert.equal(oldest.data.files, 0);
    assert.equal(newest.data.files, 1);
    assert.equal(newest.data.storage, 1000);
    assert.equal(newest.createdAt, new Date(START + 12 * MINUTE).toISOString());
    // The regular slot is not taken twice because of it: the next one comes at the next boundary.
    assert.equal((await schedule()).nextAt, new Date(START + 30 * MINUTE).toISOString());
  });

  it('stops taking early snapshots once the series has enough points; the slots go on', async () => {
    for (let i = (await series()).length; i < EARLY_SNAPSHOTS; i++) {
      await uploadOne(server(), root.token, 'y'.repeat(10 + i), { name: `more-${i}.txt`, type: 'text/plain' });
      clock.advance(MINUTE);
      assert.equal(await takeEarlySnapshot(server().ctx), true, `early snapshot ${i}`);
    }
    assert.equal((await schedule()).early, false);
    await uploadOne(server(), root.token, 'z'.repeat(10), { name: 'late.txt', type: 'text/plain' });
    clock.advance(MINUTE);
    assert.equal(await takeMetricsSnapshots(server().ctx), false);
    clock.set(START + 30 * MINUTE);
    assert.equal(await takeMetricsSnapshots(server().ctx), true);
    assert.equal((await series()).length, EARLY_SNAPSHOTS + 1);
  });

  it('says nothing is coming while statistics are off', async () => {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: root.token,
      body: { metricsEnabled: false },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await schedule(), { enabled: false, intervalMs: 30 * MINUTE, nextAt: null, early: false });
    assert.equal(await takeEarlySnapshot(server().ctx), false);
  });
});
