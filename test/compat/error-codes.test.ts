// The same error code for the same condition as Zipline v4: requests written as Zipline's dashboard, ShareX configs
// and scripts send them, and the code Zipline answers (reference: Zipline's route table and error list).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { makeFolder, makeUser, NO_RATE_LIMIT, type Role } from '../support/factory.js';
import { sendChunk } from '../support/chunked-uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { upload, uploadOne } from '../support/uploads.js';

forEachDatabase('compat: Zipline error codes', (engine) => {
  const clock = new ManualClock(Date.parse('2031-05-01T08:00:00Z'));
  const server = useTestServer({ engine, clock, env: NO_RATE_LIMIT });
  let root: TestUser;
  let ann: TestUser;
  before(async () => {
    root = await server().setup('root', 'root-password');
    ann = await makeUser(server(), { username: 'ann' });
  });
  const user = (role: Role = 'USER') => makeUser(server(), { role });
  const setSettings = async (body: Record<string, unknown>) => {
    const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  it('a file over filesMaxFileSize: 413 / 5001 on /api/upload and on /api/upload/partial', async () => {
    await setSettings({ filesMaxFileSize: '1kb' });
    try {
      const big = Buffer.alloc(4096, 1);
      const res = await upload(server(), ann.token, [{ name: 'big.bin', content: big }]);
      assert.equal(res.status, 413);
      assert.equal(res.body.code, 5001);
      const chunk = await sendChunk(server(), ann.token, { file: big, start: 0, end: 1023, fileName: 'big.bin' });
      assert.equal(chunk.status, 413);
      assert.equal(chunk.body.code, 5001);
    } finally {
      await setSettings({ filesMaxFileSize: '1gb' });
    }
  });

  it('x-zipline-filename that is already taken: 400 / 1009 (a rename to a taken name stays 1014)', async () => {
    const first = await upload(server(), ann.token, [{ name: 'a.txt', content: 'a' }], {
      'x-zipline-filename': 'taken',
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await upload(server(), ann.token, [{ name: 'b.txt', content: 'b' }], {
      'x-zipline-filename': 'taken',
    });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 1009);
    const other = await uploadOne(server(), ann.token, 'c', { name: 'c.txt' });
    const rename = await server().json('PATCH', `/api/user/files/${other.id}`, {
      auth: ann.token,
      body: { name: 'taken.txt' },
    });
    assert.equal(rename.body.code, 1014);
  });

  it('a taken username: 1039 on POST /api/auth/register, 1038 on PATCH /api/user', async () => {
    await setSettings({ registrationEnabled: true });
    const register = await server().json('POST', '/api/auth/register', {
      body: { username: 'ann', password: 'whatever-password' },
    });
    assert.equal(register.status, 400);
    assert.equal(register.body.code, 1039);
    const someone = await user();
    const rename = await server().json('PATCH', '/api/user', { auth: someone.token, body: { username: 'ann' } });
    assert.equal(rename.status, 400);
    assert.equal(rename.body.code, 1038);
  });

  it('a taken vanity: POST /api/user/urls 1042, PATCH /api/user/urls/:id 1041, as Zipline', async () => {
    const shorten = (body: Record<string, unknown>) =>
      server().json('POST', '/api/user/urls', { auth: ann.token, body });
    const first = await shorten({ destination: 'https://example.com/a', vanity: 'zipline-vanity' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await shorten({ destination: 'https://example.com/b' });
    const taken = await shorten({ destination: 'https://example.com/c', vanity: 'zipline-vanity' });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.code, 1042);
    const edit = await server().json('PATCH', `/api/user/urls/${second.body.id}`, {
      auth: ann.token,
      body: { vanity: 'zipline-vanity' },
    });
    assert.equal(edit.status, 400);
    assert.equal(edit.body.code, 1041);
  });

  it('PATCH /api/user/files/transaction {files, folder}: a missing folder 3006, nothing moved 4006', async () => {
    const file = await uploadOne(server(), ann.token, 'moving', { name: 'm.txt' });
    const missing = await server().json('PATCH', '/api/user/files/transaction', {
      auth: ann.token,
      body: { files: [file.id], folder: 'no-such-folder' },
    });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.code, 3006);
    const folder = await makeFolder(server(), ann, { name: 'Moves' });
    const move = () =>
      server().json('PATCH', '/api/user/files/transaction', {
        auth: ann.token,
        body: { files: [file.id], folder: folder.id },
      });
    assert.deepEqual((await move()).body, { count: 1, name: 'Moves' });
    const again = await move();
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 4006);
    // Favourites keep 1028 for "nothing changed", as Zipline.
    const fav = () =>
      server().json('PATCH', '/api/user/files/transaction', {
        auth: ann.token,
        body: { files: [file.id], favorite: true },
      });
    await fav();
    assert.equal((await fav()).body.code, 1028);
  });

  it('GET /api/user/files?id=<unknown user> as an admin: 404 / 4009', async () => {
    const admin = await user('ADMIN');
    const res = await server().json('GET', '/api/user/files?page=1&id=no-such-user', { auth: admin.token });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 4009);
    // A USER learns nothing about which ids exist.
    const plain = await server().json('GET', '/api/user/files?page=1&id=no-such-user', { auth: ann.token });
    assert.equal(plain.body.code, 3000);
  });

  it('GET /api/users/:id: an ADMIN asking for a SUPERADMIN gets 403 / 3019; for a USER, the user', async () => {
    const admin = await user('ADMIN');
    const res = await server().json('GET', `/api/users/${root.id}`, { auth: admin.token });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 3019);
    const ok = await server().json('GET', `/api/users/${ann.id}`, { auth: admin.token });
    assert.equal(ok.status, 200);
    const unknown = await server().json('GET', '/api/users/no-such-user', { auth: admin.token });
    assert.equal(unknown.body.code, 4009);
  });

  it('/view/<name> of an expired file: 410', async () => {
    const file = await uploadOne(server(), ann.token, 'short-lived', {
      name: 'gone.txt',
      headers: { 'x-zipline-deletes-at': '1h' },
    });
    clock.advance(2 * 3_600_000);
    const res = await server().fetch(`/view/${file.name}`);
    assert.equal(res.status, 410);
    assert.equal(((await res.json()) as { code: number }).code, 4000);
    // /raw keeps 404 for an expired file.
    const other = await uploadOne(server(), ann.token, 'x', {
      name: 'raw.txt',
      headers: { 'x-zipline-deletes-at': '1h' },
    });
    clock.advance(2 * 3_600_000);
    assert.equal((await server().fetch(`/raw/${other.name}`)).status, 404);
  });
});
