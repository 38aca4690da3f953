// The instance export (GET /api/server/export, Zipline v4's format) and import (POST /api/server/import and Zipline's
// /api/server/import/v4): a Zipline v4 export (test/compat/fixtures, written from Zipline's format) imports with its
// users, files' records, URLs, folders, tags and invites, and a copied upload is then served by /raw/<name>; Chute's
// own export goes into an empty instance and back out the same; an import that fails part-way changes nothing; the
// usage counters stay equal to a fresh count; 1023, 3000 and 3015.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Export4Schema } from '../../../src/schemas/zipline-export.js';
import { usageCounterDrift, usageOfOne } from '../../../src/services/statistics/usage.js';
import { flushViews } from '../../../src/services/serving/view-counts.js';
import { makeFolder, makeTag, makeUrl, makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { PNG_1X1 } from '../../support/fixtures.js';
import { describeS3 } from '../../support/s3.js';
import {
  forEachDatabase,
  startTestServer,
  useTestServer,
  type TestServer,
  type TestUser,
} from '../../support/server.js';
import { insertFileRows } from '../../support/file-rows.js';
import { uploadOne } from '../../support/uploads.js';

const FIXTURE = path.join(import.meta.dirname, '..', '..', 'compat', 'fixtures', 'zipline-v4-export.json');
const zipline = async () => JSON.parse(await readFile(FIXTURE, 'utf8'));

/** The bytes of the fixture's files, as they lie in Zipline's uploads folder (named as the files). */
const ZIPLINE_UPLOADS: Record<string, Buffer> = {
  'hT4kQa.png': Buffer.from(PNG_1X1, 'base64'),
  'notes.txt': Buffer.from('Notes from Zipline\n'),
  'Zx81Lm.bin': Buffer.alloc(4096, 7),
};

const sha256 = (bytes: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(bytes as ArrayBuffer))
    .digest('hex');

/** Copies Zipline's uploads "as they are": into the local uploads folder, or as objects of the bucket. */
async function copyZiplineUploads(server: TestServer): Promise<void> {
  if (server.ctx.storage.kind === 'local') {
    const dir = path.join(server.dataDir, 'uploads');
    await mkdir(dir, { recursive: true });
    for (const [name, bytes] of Object.entries(ZIPLINE_UPLOADS)) await writeFile(path.join(dir, name), bytes);
  } else {
    for (const [name, bytes] of Object.entries(ZIPLINE_UPLOADS)) {
      await server.ctx.storage.put(name, Readable.from([bytes]), { contentType: 'application/octet-stream' });
    }
  }
}

async function rowCounts(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['users', 'files', 'folders', 'tags', 'file_tags', 'urls', 'url_slugs', 'invites'] as const) {
    const row = await server.ctx.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

async function assertCountersExact(server: TestServer): Promise<void> {
  await flushViews(server.ctx);
  assert.deepEqual(await usageCounterDrift(server.ctx.db), [], 'usage counters equal a fresh count');
}

function ziplineImportSuite(server: () => TestServer): void {
  let admin: TestUser;
  before(async () => {
    admin = await server().setup();
  });

  it('imports a Zipline v4 export; copied uploads are served by /raw/<name>', async () => {
    const result = await server().json('POST', '/api/server/import/v4', {
      auth: admin.token,
      body: { export4: await zipline(), config: { settings: false, mergeCurrentUser: null } },
    });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.deepEqual(result.body.imported, {
      users: 3,
      oauthProviders: 1,
      quotas: 1,
      passkeys: 0,
      folders: 2,
      files: 3,
      tags: 1,
      urls: 2,
      invites: 2,
      metrics: 0,
    });
    assert.deepEqual(
      result.body.skipped.map((s: { kind: string }) => s.kind),
      ['metric'],
    );
    await assertCountersExact(server());

    await copyZiplineUploads(server());
    for (const name of ['hT4kQa.png', 'notes.txt']) {
      const res = await server().fetch(`/raw/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(sha256(await res.arrayBuffer()), sha256(ZIPLINE_UPLOADS[name]!), name);
    }
    assert.equal((await server().fetch('/raw/hT4kQa.png')).headers.get('content-type'), 'image/png');
    const locked = await server().fetch('/raw/Zx81Lm.bin');
    assert.notEqual(locked.status, 200, 'the password of the file came along');

    // The accounts sign in with their Zipline passwords; bob's TOTP came along.
    const alice = await server().login('alice', 'alice-password');
    const bobLogin = await server().json('POST', '/api/auth/login', {
      body: { username: 'bob', password: 'bob-password' },
    });
    assert.equal(bobLogin.status, 200);
    assert.equal(bobLogin.body.totp, true);

    const files = await server().json('GET', '/api/user/files?page=1', { auth: alice });
    assert.deepEqual(files.body.page.map((f: { name: string }) => f.name).sort(), ['hT4kQa.png', 'notes.txt']);
    const png = files.body.page.find((f: { name: string }) => f.name === 'hT4kQa.png');
    assert.equal(png.originalName, 'Screenshot 2025-02-12 111109.png');
    assert.equal(png.favorite, true);
    assert.equal(png.views, 41 + 2, "Zipline's 41 views and the two reads above");
    assert.equal(png.createdAt, '2025-02-12T11:11:11.000Z');

    const folders = await server().json('GET', '/api/user/folders', { auth: alice });
    const screenshots = folders.body.find((f: { name: string }) => f.name === 'Screenshots');
    const old = folders.body.find((f: { name: string }) => f.name === 'Old');
    assert.equal(screenshots.public, true);
    assert.equal(old.parentId, screenshots.id);
    assert.equal(png.folderId, screenshots.id);

    const tags = await server().json('GET', '/api/user/tags', { auth: alice });
    assert.deepEqual(
      tags.body.map((t: { name: string; files: number; color: string }) => [t.name, t.files, t.color]),
      [['screenshots', 2, '#4dabf7']],
    );

    const docs = await server().fetch('/go/docs');
    assert.equal(docs.status, 302);
    assert.equal(docs.headers.get('location'), 'https://zipline.diced.sh/docs');
    assert.equal((await server().fetch('/go/aZ09bc')).headers.get('location'), 'https://zipline.diced.sh/docs');

    const invite = await server().json('GET', '/api/auth/invites/Xk3pQz', { auth: admin.token });
    assert.equal(invite.status, 200, JSON.stringify(invite.body));
    assert.equal(invite.body.code, 'Xk3pQz', 'the invite is found by its code');
    assert.equal(invite.body.uses, 1);

    const aliceId = 'cm8b2alc0000208l4fq9e6m1n';
    const usage = await usageOfOne(server().ctx.db, aliceId);
    assert.equal(usage.files, 2);
    assert.equal(usage.bytes, 89);
    assert.equal(usage.urls, 1);
    const quota = await server().json('GET', `/api/users/${aliceId}`, { auth: admin.token });
    assert.equal(quota.body.user.quota.maxBytes, String(1024 ** 3), 'Zipline\'s "1gb" in bytes');
    assert.equal(quota.body.user.quota.maxUrls, 50);
    const bob = await server().json('GET', '/api/users/cm8c3bob0000308l4r0u5y7xk', { auth: admin.token });
    assert.equal(bob.body.user.role, 'ADMIN');
    assert.equal(bob.body.user.totpEnabled, true);
    assert.deepEqual(
      bob.body.user.oauthProviders.map((p: { provider: string; username: string }) => [p.provider, p.username]),
      [['DISCORD', 'bob#0001']],
    );
  });

  it('skips what exists on a second import and changes nothing', async () => {
    const before = await rowCounts(server());
    const again = await server().json('POST', '/api/server/import', { auth: admin.token, body: await zipline() });
    assert.equal(again.status, 200);
    assert.equal(again.body.imported.users, 0);
    assert.equal(again.body.imported.files, 0);
    assert.ok(again.body.skipped.some((s: { kind: string; reason: string }) => s.kind === 'user'));
    assert.deepEqual(await rowCounts(server()), before);
    await assertCountersExact(server());
  });
}

forEachDatabase('importing a Zipline v4 export', (engine) => {
  describe('local datasource', () => {
    ziplineImportSuite(useTestServer({ engine, env: NO_RATE_LIMIT }));
  });

  describe('failures', () => {
    const server = useTestServer({ engine, env: NO_RATE_LIMIT });
    let admin: TestUser;
    before(async () => {
      admin = await server().setup();
    });

    it('leaves nothing behind when it fails part-way (the invites table is gone): a clear error', async () => {
      const before = await rowCounts(server());
      await sql`alter table invites rename to invites_away`.execute(server().ctx.db);
      try {
        const res = await server().json('POST', '/api/server/import', { auth: admin.token, body: await zipline() });
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 9000);
        assert.match(res.body.error, /nothing was changed/);
      } finally {
        await sql`alter table invites_away rename to invites`.execute(server().ctx.db);
      }
      assert.deepEqual(await rowCounts(server()), before, 'users, files, folders ... as before');
      await assertCountersExact(server());
    });

    it('refuses a malformed export (1000) and an unusable storage key before writing anything', async () => {
      const before = await rowCounts(server());
      const broken = await zipline();
      delete broken.data.users;
      const res = await server().json('POST', '/api/server/import', { auth: admin.token, body: broken });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 1000);
      const badKey = await zipline();
      badKey.data.files[1].name = '../../etc/passwd';
      const key = await server().json('POST', '/api/server/import', { auth: admin.token, body: badKey });
      assert.equal(key.status, 400);
      assert.equal(key.body.code, 1000);
      assert.match(key.body.error, /\.\./);
      assert.deepEqual(await rowCounts(server()), before);
    });

    it('is for the SUPERADMIN only (3000, 3015), and answers 1023 without a settings record', async () => {
      const user = await makeUser(server());
      const adminUser = await makeUser(server(), { role: 'ADMIN' });
      for (const [who, code] of [
        [user, 3000],
        [adminUser, 3015],
      ] as const) {
        const exp = await server().json('GET', '/api/server/export', { auth: who.token });
        assert.equal(exp.body.code, code);
        const imp = await server().json('POST', '/api/server/import/v4', {
          auth: who.token,
          body: { export4: await zipline() },
        });
        assert.equal(imp.body.code, code);
      }
      const saved = await server().ctx.db.selectFrom('settings').selectAll().executeTakeFirstOrThrow();
      await server().ctx.db.deleteFrom('settings').execute();
      try {
        const res = await server().json('GET', '/api/server/export', { auth: admin.token });
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 1023);
      } finally {
        await server().ctx.db.insertInto('settings').values(saved).execute();
      }
    });
  });
});

forEachDatabase('importing a Zipline v4 export into your own account', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  it("gives the content of config.mergeCurrentUser's account to the importing SUPERADMIN", async () => {
    const admin = await server().setup();
    const res = await server().json('POST', '/api/server/import/v4', {
      auth: admin.token,
      body: { export4: await zipline(), config: { mergeCurrentUser: 'cm8b2alc0000208l4fq9e6m1n' } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.imported.users, 3, 'alice merged, the two others made');
    assert.equal(res.body.imported.quotas, 1);
    const users = await server().json('GET', '/api/users', { auth: admin.token });
    assert.ok(!users.body.some((u: { username: string }) => u.username === 'alice'), 'no account for alice');
    const files = await server().json('GET', '/api/user/files?page=1', { auth: admin.token });
    assert.deepEqual(files.body.page.map((f: { name: string }) => f.name).sort(), ['hT4kQa.png', 'notes.txt']);
    const folders = await server().json('GET', '/api/user/folders', { auth: admin.token });
    assert.deepEqual(folders.body.map((f: { name: string }) => f.name).sort(), ['Old', 'Screenshots']);
    await assertCountersExact(server());
    assert.equal((await usageOfOne(server().ctx.db, admin.id)).files, 2);
  });
});

describeS3('importing a Zipline v4 export', (s3Env) => {
  ziplineImportSuite(useTestServer(() => ({ engine: 'sqlite', env: { ...NO_RATE_LIMIT, ...s3Env() } })));
});

forEachDatabase("Chute's own export, into an empty instance", (engine) => {
  const source = useTestServer({ engine, env: { ...NO_RATE_LIMIT, INVITES_ENABLED: 'true' } });
  let admin: TestUser;
  let user: TestUser;
  const uploaded = new Map<string, string>();
  /** The link name of the file handed a link without the extension (abc of abc.txt). */
  let shortName: string;
  before(async () => {
    admin = await source().setup('source-admin', 'source-admin-password');
    user = await makeUser(source());
    const folder = await makeFolder(source(), user, { name: 'Trip', public: true });
    const tag = await makeTag(source(), user, { name: 'best', color: '#ff8800' });
    await makeUrl(source(), user, { destination: 'https://example.org/round-trip', vanity: 'roundtrip' });
    const bytes = Buffer.from(PNG_1X1, 'base64');
    const inFolder = await uploadOne(source(), user.token, bytes, {
      name: 'pic.png',
      headers: { 'x-zipline-folder': folder.id },
    });
    uploaded.set(inFolder.name, sha256(bytes));
    const text = await uploadOne(source(), user.token, 'round trip text', {
      headers: { 'x-service-extensionless': 'true' },
    });
    uploaded.set(text.name, sha256(Buffer.from('round trip text')));
    shortName = new URL(text.url).pathname.slice('/u/'.length);
    assert.equal(`${shortName}.txt`, text.name);
    await source().json('PUT', `/api/user/files/${text.id}/tags`, { auth: user.token, body: { tags: [tag.id] } });
    const invite = await source().json('POST', '/api/auth/invites', {
      auth: admin.token,
      body: { expiresAt: 'never' },
    });
    assert.equal(invite.status, 200, JSON.stringify(invite.body));
    await (await source().fetch(`/raw/${text.name}`)).arrayBuffer();
    await flushViews(source().ctx);
  });

  it('exports every record in the v4 format, counts them, and imports them into a fresh instance', async () => {
    const counts = await source().json('GET', '/api/server/export?counts=true', { auth: admin.token });
    assert.deepEqual(counts.body, { users: 2, files: 2, urls: 1, folders: 1, invites: 1, thumbnails: 0, metrics: 0 });

    const res = await source().fetch('/api/server/export?nometrics', { headers: { authorization: admin.token } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="chute_export_\d+\.json"/);
    const exported = JSON.parse(await res.text());
    assert.ok(Export4Schema.safeParse(exported).success, 'the export passes the v4 format');
    assert.equal(exported.versions.export, '4');
    assert.deepEqual(exported.request.env, {}, 'no environment (secrets) in the export');
    assert.equal(exported.data.files.length, 2);
    assert.deepEqual(
      exported.data.files.map((f: { extensionlessName?: string }) => f.extensionlessName).filter(Boolean),
      [shortName],
      "the short link's name goes with its file",
    );
    assert.equal(exported.data.users.length, 2);
    assert.equal(exported.data.invites.length, 1);

    const target = await startTestServer({ engine, env: NO_RATE_LIMIT });
    try {
      const targetAdmin = await target.setup('target-admin', 'target-admin-password');
      await cp(path.join(source().dataDir, 'uploads'), path.join(target.dataDir, 'uploads'), { recursive: true });
      const imported = await target.json('POST', '/api/server/import', { auth: targetAdmin.token, body: exported });
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.equal(imported.body.imported.users, 2);
      assert.equal(imported.body.imported.files, 2);
      assert.deepEqual(imported.body.skipped, []);

      await assertCountersExact(target);
      assert.deepEqual(await usageOfOne(target.ctx.db, user.id), await usageOfOne(source().ctx.db, user.id));

      // Out again: the same records (but for the request's own fields and the importing admin).
      const again = await target.fetch('/api/server/export', { headers: { authorization: targetAdmin.token } });
      const reexported = JSON.parse(await again.text());
      const strip = (e: typeof exported) => ({
        files: e.data.files,
        folders: e.data.folders,
        userTags: e.data.userTags,
        urls: e.data.urls,
        invites: e.data.invites,
        users: e.data.users.filter((u: { id: string }) => u.id === user.id || u.id === admin.id),
      });
      assert.deepEqual(strip(reexported), strip(exported));

      // And the copied uploads are served, byte for byte; the account signs in with its password.
      for (const [name, hash] of uploaded) {
        const raw = await target.fetch(`/raw/${name}`);
        assert.equal(raw.status, 200, name);
        assert.equal(sha256(await raw.arrayBuffer()), hash, name);
      }
      const short = await target.fetch(`/raw/${shortName}`);
      assert.equal(short.status, 200, 'the link without the extension works on the new instance');
      assert.equal(await short.text(), 'round trip text');
      const login = await target.login(user.username, user.password);
      const folders = await target.json('GET', '/api/user/folders', { auth: login });
      assert.deepEqual(
        folders.body.map((f: { name: string; public: boolean }) => [f.name, f.public]),
        [['Trip', true]],
      );
      assert.equal((await target.fetch('/go/roundtrip')).headers.get('location'), 'https://example.org/round-trip');
    } finally {
      await target.close();
    }
  });

  it('pages through more records than one page holds: every file once, its folder, tag and thumbnail', async () => {
    const db = source().ctx.db;
    // 130 files (three pages of the export's 50), every third with a thumbnail; 120 in a folder, 110 with a tag.
    const folder = await makeFolder(source(), user, { name: 'Many' });
    const tag = await makeTag(source(), user, { name: 'many' });
    const rows = await insertFileRows(
      source().ctx,
      Array.from({ length: 130 }, (_, i) => ({
        user_id: user.id,
        folder_id: i < 120 ? folder.id : null,
        thumbnail_key: i % 3 === 0 ? `.thumbnails/t${i}.webp` : null,
      })),
    );
    await db
      .insertInto('file_tags')
      .values(rows.slice(0, 110).map((r) => ({ file_id: r.id, tag_id: tag.id })))
      .execute();
    const stored = await db.selectFrom('files').select(['id', 'thumbnail_key']).execute();

    const res = await source().fetch('/api/server/export', { headers: { authorization: admin.token } });
    assert.equal(res.status, 200);
    const exported = JSON.parse(await res.text());
    assert.ok(Export4Schema.safeParse(exported).success, 'the export passes the v4 format');
    const ids = exported.data.files.map((f: { id: string }) => f.id);
    assert.equal(new Set(ids).size, ids.length, 'no file twice');
    assert.deepEqual([...ids].sort(), stored.map((r) => r.id).sort(), 'every file');
    assert.deepEqual(
      exported.data.thumbnails.map((t: { fileId: string; path: string }) => [t.fileId, t.path]).sort(),
      stored
        .filter((r) => r.thumbnail_key !== null)
        .map((r) => [r.id, r.thumbnail_key])
        .sort(),
      'a thumbnail for each file that has one, and only those',
    );
    // The folder's and the tag's lists of files (their files were the first 120 and 110 rows).
    const filesOf = (list: Array<{ id: string; files: string[] }>, id: string) =>
      [...list.find((x) => x.id === id)!.files].sort();
    const firstIds = (n: number) =>
      rows
        .slice(0, n)
        .map((r) => r.id)
        .sort();
    assert.deepEqual(filesOf(exported.data.folders, folder.id), firstIds(120));
    assert.deepEqual(filesOf(exported.data.userTags, tag.id), firstIds(110));
  });
});

forEachDatabase('the instance export of many files without a thumbnail', (engine) => {
  const server = useTestServer({ engine, env: { REQUEST_IDLE_TIMEOUT: '1' } });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup();
  });

  it('keeps the connection from going silent through pages that give no record (REQUEST_IDLE_TIMEOUT)', async () => {
    // 1,200 pages of files with no thumbnail: the thumbnails pass pauses at least a millisecond after each, longer
    // than the 1 s idle timeout in all.
    await insertFileRows(
      server().ctx,
      Array.from({ length: 60_000 }, () => ({ user_id: admin.id })),
    );
    const res = await server().fetch('/api/server/export', { headers: { authorization: admin.token } });
    assert.equal(res.status, 200);
    const doc = JSON.parse(await res.text());
    assert.equal(doc.data.files.length, 60_000);
    assert.deepEqual(doc.data.thumbnails, []);
  });
});
