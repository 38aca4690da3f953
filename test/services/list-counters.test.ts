// Stored file counts of folders and tags (db/schema/list-counters.ts): after random sequences of operations through the API
// (files added into folders, moved in and out, deleted one by one and in bulk, folders deleted with their files kept
// or deleted and their children lifted or deleted, tags set, added, removed and deleted, accounts deleted with their
// content), run one after another and, on PostgreSQL, several at once, every stored count equals a fresh count; the
// answers of GET /api/user/folders and /api/user/tags carry them.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { countDrift } from '../../src/db/schema/list-counters.js';
import { makeFolder, makeTag, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { insertFileRows } from '../support/file-rows.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../support/server.js';

const KINDS = [
  'addFiles',
  'addFiles',
  'moveIn',
  'moveOut',
  'newFolderWithFiles',
  'deleteFile',
  'deleteFiles',
  'deleteFolder',
  'setTags',
  'addTag',
  'removeTag',
  'deleteTag',
  'newTag',
  'deleteUser',
] as const;
const Step = fc.record({ kind: fc.constantFrom(...KINDS), a: fc.nat(1000), b: fc.nat(1000), c: fc.nat(1000) });
type Step = { kind: (typeof KINDS)[number]; a: number; b: number; c: number };

interface Person {
  user: TestUser;
  files: string[];
  folders: string[];
  tags: string[];
}

const pick = <T>(list: T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

async function run(server: TestServer, admin: TestUser, people: Person[], step: Step): Promise<void> {
  const who = pick(people, step.a);
  if (!who) return;
  const auth = who.user.token;
  const file = pick(who.files, step.b);
  const folder = pick(who.folders, step.c);
  const ok = (res: { status: number; body: unknown }, what: string) =>
    assert.ok(res.status === 200 || res.status === 400 || res.status === 404, `${what}: ${JSON.stringify(res.body)}`);
  switch (step.kind) {
    case 'addFiles': {
      const rows = await insertFileRows(
        server.ctx,
        Array.from({ length: 1 + (step.b % 4) }, () => ({ user_id: who.user.id, folder_id: folder ?? null })),
      );
      who.files.push(...rows.map((r) => r.id));
      return;
    }
    case 'moveIn':
      if (file && folder)
        ok(await server.json('POST', `/api/user/folders/${folder}/files`, { auth, body: { id: file } }), step.kind);
      return;
    case 'moveOut':
      if (file && folder) ok(await server.json('DELETE', `/api/user/folders/${folder}/files/${file}`, { auth }), 'out');
      return;
    case 'newFolderWithFiles': {
      const parentId = step.b % 3 === 0 ? folder : undefined;
      const made = await makeFolder(server, who.user, { files: who.files.slice(0, step.c % 4), parentId });
      who.folders.push(made.id);
      return;
    }
    case 'deleteFile':
      if (file) {
        ok(await server.json('DELETE', `/api/user/files/${file}`, { auth }), step.kind);
        who.files.splice(who.files.indexOf(file), 1);
      }
      return;
    case 'deleteFiles': {
      const some = who.files.slice(step.b % 3, (step.b % 3) + 4);
      if (some.length === 0) return;
      ok(await server.json('DELETE', '/api/user/files/transaction', { auth, body: { files: some } }), step.kind);
      who.files = who.files.filter((f) => !some.includes(f));
      return;
    }
    case 'deleteFolder': {
      if (!folder) return;
      const files = step.b % 2 === 0 ? 'keep' : 'delete';
      const children = step.c % 2 === 0 ? 'delete' : 'lift';
      ok(
        await server.json('DELETE', `/api/user/folders/${folder}?files=${files}&children=${children}`, { auth }),
        'rm',
      );
      // Which folders and files went is read back rather than worked out.
      const left = await server.ctx.db.selectFrom('folders').select('id').where('user_id', '=', who.user.id).execute();
      who.folders = left.map((f) => f.id);
      const kept = await server.ctx.db.selectFrom('files').select('id').where('user_id', '=', who.user.id).execute();
      who.files = kept.map((f) => f.id);
      return;
    }
    case 'setTags':
      if (file) {
        const tags = who.tags.filter((_, i) => (step.c >> i) % 2 === 1);
        ok(await server.json('PUT', `/api/user/files/${file}/tags`, { auth, body: { tags } }), step.kind);
      }
      return;
    case 'addTag': {
      const tag = pick(who.tags, step.c);
      if (file && tag) ok(await server.json('POST', `/api/user/files/${file}/tags/${tag}`, { auth }), step.kind);
      return;
    }
    case 'removeTag': {
      const tag = pick(who.tags, step.c);
      if (file && tag) ok(await server.json('DELETE', `/api/user/files/${file}/tags/${tag}`, { auth }), step.kind);
      return;
    }
    case 'deleteTag': {
      const tag = pick(who.tags, step.c);
      if (!tag) return;
      ok(await server.json('DELETE', `/api/user/tags/${tag}`, { auth }), step.kind);
      who.tags.splice(who.tags.indexOf(tag), 1);
      return;
    }
    case 'newTag':
      who.tags.push((await makeTag(server, who.user)).id);
      return;
    case 'deleteUser': {
      if (people.length < 2 || step.b % 4 !== 0) return;
      const res = await server.json('DELETE', `/api/users/${who.user.id}`, {
        auth: admin.token,
        body: { delete: step.c % 2 === 0 },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      people.splice(people.indexOf(who), 1);
      return;
    }
  }
}

async function person(server: TestServer): Promise<Person> {
  const user = await makeUser(server);
  const folders = [(await makeFolder(server, user)).id, (await makeFolder(server, user)).id];
  const tags = [(await makeTag(server, user)).id, (await makeTag(server, user)).id, (await makeTag(server, user)).id];
  return { user, files: [], folders, tags };
}

forEachDatabase('stored file counts of folders and tags', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('count-admin', 'count-admin-password');
  });

  it('equal a fresh count after random sequences of operations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 10, maxLength: 40 }), async (steps) => {
        const people = [await person(server()), await person(server()), await person(server())];
        for (const step of steps) await run(server(), admin, people, step);
        assert.deepEqual(await countDrift(server().ctx.db), []);
      }),
      { numRuns: 4, seed: 23, endOnFailure: true },
    );
  });

  it('equal a fresh count after operations of several clients at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(Step, { minLength: 8, maxLength: 8 }), { minLength: 4, maxLength: 4 }),
        async (clients) => {
          // Each client its own person (no two clients change the same account's list of what is left: a client
          // that picked a folder must not see another client delete it before its own request).
          const people: Person[] = [];
          for (let i = 0; i < clients.length; i++) people.push(await person(server()));
          await Promise.all(
            clients.map(async (steps, i) => {
              const mine = [people[i]!];
              for (const step of steps) if (step.kind !== 'deleteUser') await run(server(), admin, mine, step);
            }),
          );
          assert.deepEqual(await countDrift(server().ctx.db), []);
        },
      ),
      { numRuns: 2, seed: 5, endOnFailure: true },
    );
  });

  it('are what the folder and tag lists answer', async () => {
    const alice = await person(server());
    const [folder] = alice.folders;
    const [tag] = alice.tags;
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 7 }, () => ({ user_id: alice.user.id, folder_id: folder! })),
    );
    for (const row of rows.slice(0, 5))
      await server().json('POST', `/api/user/files/${row.id}/tags/${tag}`, { auth: alice.user.token });
    await server().json('DELETE', `/api/user/files/${rows[0]!.id}`, { auth: alice.user.token });
    const folders = await server().json('GET', '/api/user/folders', { auth: alice.user.token });
    assert.equal(folders.body.find((f: { id: string }) => f.id === folder).fileCount, 6);
    const detail = await server().json('GET', `/api/user/folders/${folder}`, { auth: alice.user.token });
    assert.equal(detail.body.fileCount, 6);
    assert.equal(detail.body.files.length, 6);
    // The file list of the folder takes its total from the same count, and its pages follow it.
    const listed = await server().json('GET', `/api/user/files?page=1&perpage=4&folder=${folder}`, {
      auth: alice.user.token,
    });
    assert.equal(listed.body.total, 6);
    assert.equal(listed.body.pages, 2);
    assert.equal(listed.body.page.length, 4);
    const favourites = await server().json('GET', `/api/user/files?page=1&folder=${folder}&favorite=true`, {
      auth: alice.user.token,
    });
    assert.equal(favourites.body.total, 0, 'favourites in the folder are counted, not read from the folder');
    const tagged = await server().json('GET', `/api/user/files?page=1&perpage=3&tags=${tag}`, {
      auth: alice.user.token,
    });
    assert.equal(tagged.body.total, 4);
    assert.equal(tagged.body.pages, 2);
    const tags = await server().json('GET', '/api/user/tags', { auth: alice.user.token });
    assert.equal(tags.body.find((t: { id: string }) => t.id === tag).files, 4);
  });
});
