// Group commit (src/db/sqlite/commits.ts SqliteGroupCommit, src/db/postgres/commits.ts) on the real engines: concurrent
// transactions share commits on SQLite, each keeps its own outcome (one that fails is rolled back alone), and what
// resolved is stored.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { SQLITE_CACHE_SIZE } from '../../src/db/sqlite/worker-connections.js';
import type { GroupCommit, RowLane } from '../../src/db/commits.js';
import { plainTransactions } from '../../src/db/postgres/commits.js';
import { SqliteGroupCommit } from '../../src/db/sqlite/commits.js';
import { forEachDatabase, useTestServer } from '../support/server.js';
import { holdFlushes } from '../support/wal.js';

forEachDatabase('group commit', (engine) => {
  const server = useTestServer({ engine });
  // Without the log's flushes (SQLite): a batch forms only of what was asked for while another commits.
  const groupCommit = (): GroupCommit =>
    engine === 'sqlite' ? new SqliteGroupCommit(server().ctx.db) : plainTransactions(server().ctx.db);

  it('runs concurrent transactions, each with its own outcome, and shares commits on SQLite', async () => {
    const { ctx } = server();
    const commits = groupCommit();
    const now = ctx.clock.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        commits.run(async (trx) => {
          await trx
            .insertInto('pending_objects')
            .values({ storage_key: `group-${i}`, instance_id: 'test', created_at: now })
            .execute();
          // A second statement after an await, as a real transaction has (quota check, name claim ...).
          await new Promise((resolve) => setImmediate(resolve));
          if (i % 10 === 3) throw new Error(`transaction ${i} fails`);
          await trx
            .insertInto('pending_objects')
            .values({ storage_key: `group-${i}-second`, instance_id: 'test', created_at: now })
            .execute();
          return i;
        }),
      ),
    );
    outcomes.forEach((outcome, i) => {
      if (i % 10 === 3) {
        assert.equal(outcome.status, 'rejected');
        assert.match(String((outcome as PromiseRejectedResult).reason), new RegExp(`transaction ${i} fails`));
      } else {
        assert.deepEqual(outcome, { status: 'fulfilled', value: i });
      }
    });
    const stored = await ctx.db
      .selectFrom('pending_objects')
      .select('storage_key')
      .where('storage_key', 'like', 'group-%')
      .execute();
    const expected = Array.from({ length: 40 }, (_, i) => i)
      .filter((i) => i % 10 !== 3)
      .flatMap((i) => [`group-${i}`, `group-${i}-second`]);
    assert.deepEqual(
      stored.map((r) => r.storage_key).sort(),
      expected.sort(),
      'a failed one left nothing, the others all',
    );
    assert.equal(commits.stats.transactions, 40);
    if (engine === 'sqlite') {
      assert.ok(
        commits.stats.commits < commits.stats.transactions / 2,
        `${commits.stats.transactions} transactions shared ${commits.stats.commits} commits`,
      );
    }
    await ctx.db.deleteFrom('pending_objects').where('storage_key', 'like', 'group-%').execute();
  });

  it('when one of a batch fails, runs the others again without it: its writes are gone, theirs stored once', async () => {
    const { ctx } = server();
    const commits = groupCommit();
    const now = ctx.clock.now();
    const insert = (trx: Parameters<Parameters<GroupCommit['run']>[0]>[0], key: string) =>
      trx.insertInto('pending_objects').values({ storage_key: key, instance_id: 'test', created_at: now }).execute();
    // The first transaction holds the database until the others are queued: on SQLite they then form one batch.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = commits.run(async (trx) => {
      await gate;
      await insert(trx, 'rerun-first');
    });
    const runs = [0, 0, 0, 0, 0, 0];
    const rest = runs.map((_, i) =>
      commits.run(async (trx) => {
        runs[i]!++;
        await insert(trx, `rerun-${i}`);
        await new Promise((resolve) => setImmediate(resolve));
        // Both fail after a write: the first run of the batch stops at 2, the run again without it at 4.
        if (i === 2 || i === 4) throw new Error(`transaction ${i} fails`);
        await insert(trx, `rerun-${i}-second`);
        return i;
      }),
    );
    const settled = Promise.allSettled(rest);
    open();
    await first;
    const outcomes = await settled;
    outcomes.forEach((outcome, i) => {
      if (i === 2 || i === 4) assert.match(String((outcome as PromiseRejectedResult).reason), /fails/);
      else assert.deepEqual(outcome, { status: 'fulfilled', value: i });
    });
    const stored = await ctx.db
      .selectFrom('pending_objects')
      .select('storage_key')
      .where('storage_key', 'like', 'rerun-%')
      .orderBy('storage_key')
      .execute();
    assert.deepEqual(
      stored.map((r) => r.storage_key),
      [
        'rerun-0',
        'rerun-0-second',
        'rerun-1',
        'rerun-1-second',
        'rerun-3',
        'rerun-3-second',
        'rerun-5',
        'rerun-5-second',
        'rerun-first',
      ],
    );
    if (engine === 'sqlite') {
      // One batch after the first: run once up to the failing 2, then once more without it (4 rolled back alone).
      assert.deepEqual(runs, [2, 2, 1, 1, 1, 1]);
      assert.deepEqual(commits.stats, { commits: 2, transactions: 7, reruns: 1 });
    } else {
      assert.deepEqual(runs, [1, 1, 1, 1, 1, 1]);
      assert.equal(commits.stats.reruns, 0);
    }
    await ctx.db.deleteFrom('pending_objects').where('storage_key', 'like', 'rerun-%').execute();
  });

  it('rows added through a lane share one write per batch; a failing write fails its rows, not the batch', async () => {
    const { ctx } = server();
    const commits = groupCommit();
    const now = ctx.clock.now();
    const writes: number[] = [];
    const lane: RowLane<string> = {
      write: async (trx, keys) => {
        writes.push(keys.length);
        await trx
          .insertInto('pending_objects')
          .values(keys.map((key) => ({ storage_key: key, instance_id: 'test', created_at: now })))
          .execute();
      },
    };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = commits.run(async () => gate);
    // Queued behind the first: ten rows, a transaction among them, then a row whose key is already taken.
    const rows = Array.from({ length: 10 }, (_, i) => commits.add(lane, `lane-${i}`));
    const between = commits.run((trx) =>
      trx
        .insertInto('pending_objects')
        .values({ storage_key: 'lane-tx', instance_id: 'test', created_at: now })
        .execute(),
    );
    const settled = Promise.allSettled([...rows, between]);
    open();
    await first;
    const outcomes = await settled;
    assert.ok(outcomes.every((o) => o.status === 'fulfilled'));
    const stored = await ctx.db
      .selectFrom('pending_objects')
      .select('storage_key')
      .where('storage_key', 'like', 'lane-%')
      .execute();
    assert.equal(stored.length, 11);
    if (engine === 'sqlite') {
      assert.deepEqual(writes, [10], 'one write for the ten rows of the batch');
      assert.deepEqual(commits.stats, { commits: 2, transactions: 3, reruns: 0 });
    } else {
      assert.equal(writes.length, 10);
    }
    // A write that fails (a key taken) fails each of its rows with its error; a transaction of the same batch is kept.
    let reopen!: () => void;
    const regate = new Promise<void>((resolve) => (reopen = resolve));
    const second = commits.run(async () => regate);
    const taken = [commits.add(lane, 'lane-new'), commits.add(lane, 'lane-0')];
    const kept = commits.run((trx) =>
      trx
        .insertInto('pending_objects')
        .values({ storage_key: 'lane-kept', instance_id: 'test', created_at: now })
        .execute(),
    );
    const after = Promise.allSettled([...taken, kept]);
    reopen();
    await second;
    const [newRow, takenRow, keptTx] = await after;
    assert.equal(keptTx!.status, 'fulfilled');
    assert.equal(takenRow!.status, 'rejected');
    if (engine === 'sqlite') assert.equal(newRow!.status, 'rejected', 'the rows of a failed write share its failure');
    const left = await ctx.db
      .selectFrom('pending_objects')
      .select('storage_key')
      .where('storage_key', 'in', ['lane-new', 'lane-kept'])
      .execute();
    assert.deepEqual(
      left.map((r) => r.storage_key).sort(),
      engine === 'sqlite' ? ['lane-kept'] : ['lane-kept', 'lane-new'],
    );
    await ctx.db.deleteFrom('pending_objects').where('storage_key', 'like', 'lane-%').execute();
  });

  it('commits a lone transaction at once, and uploads go through it', async () => {
    const { ctx } = server();
    const before = { ...ctx.commits.stats };
    const admin = await server().setup();
    const uploadThrough = async (content: Blob) => {
      const form = new FormData();
      form.append('file', content, 'g.bin');
      const start = ctx.commits.stats.transactions;
      const res = await server().fetch('/api/upload', {
        method: 'POST',
        headers: { authorization: admin.token },
        body: form,
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      return ctx.commits.stats.transactions - start;
    };
    // A small request: one transaction, the record with the bytes (storage/database-objects.ts).
    assert.ok((await uploadThrough(new Blob(['group committed']))) >= 1);
    // A larger one: the pending mark and the record, two transactions of the upload.
    assert.ok((await uploadThrough(new Blob([Buffer.alloc(64 * 1024, 7)]))) >= 2);
    assert.ok(ctx.commits.stats.transactions >= before.transactions + 3);
  });

  it('on SQLite, answers each transaction only after a flush of the log that began after its commit', async (t) => {
    if (engine !== 'sqlite') return t.skip('PostgreSQL flushes its own WAL at each commit');
    const { ctx } = server();
    const walSync = server().chute.database.walSync!;
    const commits = new SqliteGroupCommit(ctx.db, walSync);
    const now = ctx.clock.now();
    const flushesBefore = walSync.flushes;
    const held = holdFlushes(walSync);
    let answered = 0;
    const runs = Array.from({ length: 20 }, (_, i) =>
      commits
        .run((trx) =>
          trx
            .insertInto('pending_objects')
            .values({ storage_key: `wal-${i}`, instance_id: 'test', created_at: now })
            .execute(),
        )
        .then(() => answered++),
    );
    // Committed (visible to the connection) but not flushed: nobody is answered yet.
    const visible = () =>
      ctx.db.selectFrom('pending_objects').select('storage_key').where('storage_key', 'like', 'wal-%').execute();
    for (let i = 0; i < 50 && (await visible()).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    assert.ok((await visible()).length >= 1, 'the first commit is made');
    assert.equal(answered, 0, 'no transaction answered before the log was flushed');
    // A write outside the group commit waits for a flush too (the connection commits with synchronous = NORMAL and
    // the driver flushes off the event loop).
    let plainDone = false;
    const plain = ctx.db
      .insertInto('pending_objects')
      .values({ storage_key: 'wal-plain', instance_id: 'test', created_at: now })
      .execute()
      .then(() => (plainDone = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(plainDone, false, 'a plain write is not answered before the log was flushed');
    const level = await sql<{ synchronous: number }>`pragma synchronous`.execute(ctx.db);
    assert.equal(level.rows[0]!.synchronous, 1, 'synchronous = NORMAL: the commit itself does not flush');
    const cache = await sql<{ cache_size: number }>`pragma cache_size`.execute(ctx.db);
    assert.equal(cache.rows[0]!.cache_size, SQLITE_CACHE_SIZE, 'the page cache that keeps writes at 1M files cheap');
    held.release();
    await Promise.all([...runs, plain]);
    assert.equal(answered, 20);
    const flushes = walSync.flushes - flushesBefore;
    assert.ok(flushes >= 1 && flushes < 21, `${flushes} flushes for 21 transactions`);
    await ctx.db.deleteFrom('pending_objects').where('storage_key', 'like', 'wal-%').execute();
  });

  it('on SQLite, transactions that arrive while the log is being flushed share the next commit', async (t) => {
    if (engine !== 'sqlite') return t.skip('PostgreSQL flushes its own WAL at each commit');
    const { ctx } = server();
    const walSync = server().chute.database.walSync!;
    const commits = new SqliteGroupCommit(ctx.db, walSync);
    const now = ctx.clock.now();
    const insert = (key: string) =>
      commits.run((trx) =>
        trx.insertInto('pending_objects').values({ storage_key: key, instance_id: 'test', created_at: now }).execute(),
      );
    const stored = async () =>
      (
        await ctx.db
          .selectFrom('pending_objects')
          .select('storage_key')
          .where('storage_key', 'like', 'held-%')
          .execute()
      ).length;
    const held = holdFlushes(walSync);
    const first = insert('held-0');
    for (let i = 0; i < 50 && (await stored()) < 1; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await stored(), 1, 'a lone transaction commits at once');
    // The first one's flush is running (held): these five wait for it instead of committing one after another.
    const later = Array.from({ length: 5 }, (_, i) => insert(`held-${i + 1}`));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await stored(), 1, 'nothing committed while the flush runs');
    held.release();
    await Promise.all([first, ...later]);
    assert.deepEqual(commits.stats, { commits: 2, transactions: 6, reruns: 0 }, 'the five shared one commit');
    await ctx.db.deleteFrom('pending_objects').where('storage_key', 'like', 'held-%').execute();
  });

  it('on SQLite, the server answers an upload only after a flush of the log', async (t) => {
    if (engine !== 'sqlite') return t.skip('PostgreSQL flushes its own WAL at each commit');
    const admin = server().superadmin ?? (await server().setup());
    const walSync = server().chute.database.walSync!;
    const before = walSync.flushes;
    const form = new FormData();
    form.append('file', new Blob(['flushed']), 'f.txt');
    const res = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: admin.token },
      body: form,
    });
    assert.equal(res.status, 200);
    assert.ok(walSync.flushes > before, 'the log was flushed before the answer');
  });
});
