import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { newId, newSecretToken, newTimeOrderedId, randomString } from '../../src/lib/security/ids.js';
import { Secrets, loadOrCreateSecret } from '../../src/lib/security/secrets.js';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

describe('ids', () => {
  it('draws from the alphabet at the requested length', () => {
    const s = randomString(1000, 'ab');
    assert.equal(s.length, 1000);
    assert.match(s, /^[ab]+$/);
    // Both letters appear: a uniform draw of 1000 from 2 never gives one letter only in practice (p = 2^-999).
    assert.ok(s.includes('a') && s.includes('b'));
  });
  it('makes distinct ids and tokens', () => {
    const ids = new Set(Array.from({ length: 2000 }, newId));
    assert.equal(ids.size, 2000);
    for (const id of ids) assert.match(id, /^[a-z][a-z0-9]{24}$/);
    assert.match(newSecretToken(), /^[A-Za-z0-9_-]{43}$/);
  });
  it('makes time-ordered ids of the same shape that sort as their times do', () => {
    const times = [0, 1, 35, 36, 1_700_000_000_000, Date.now(), Date.now() + 1, 36 ** 9 - 1];
    const ids = times.map((t) => newTimeOrderedId(t));
    for (const id of ids) assert.match(id, /^f[a-z0-9]{24}$/);
    // Byte order (SQLite's BINARY collation, PostgreSQL's "C"): the time part decides, whatever the random part.
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(sorted, ids);
    assert.equal(ids[1]!.slice(1, 10), '000000001');
    // The same millisecond: distinct, by the random part.
    const same = new Set(Array.from({ length: 2000 }, () => newTimeOrderedId(1_700_000_000_000)));
    assert.equal(same.size, 2000);
    assert.equal(new Set([...same].map((id) => id.slice(0, 10))).size, 1);
  });
  it('refuses an alphabet it cannot draw from', () => {
    assert.throws(() => randomString(4, 'a'), RangeError);
  });
});

describe('Secrets', () => {
  const secrets = new Secrets('x'.repeat(40));
  it('hashes with a key: same input same hash, another secret another hash', () => {
    assert.equal(secrets.hash('token'), secrets.hash('token'));
    assert.notEqual(secrets.hash('token'), new Secrets('y'.repeat(40)).hash('token'));
    assert.match(secrets.hash('token'), /^[0-9a-f]{64}$/);
  });

  it('keeps the latest hashes and gives the HMAC-SHA256 of the value whether kept or not', () => {
    const hashKey = Buffer.from(hkdfSync('sha256', 'z'.repeat(40), 'chute', 'lookup-hash', 32));
    const hmac = (value: string) => createHmac('sha256', hashKey).update(value).digest('hex');
    const kept = new Secrets('z'.repeat(40));
    // More values than it keeps (it empties itself when full), each asked twice, and values too long to keep.
    const values = [...Array.from({ length: 2500 }, (_, i) => `token-${i}`), 'x'.repeat(300), 'é'.repeat(257)];
    for (const value of [...values, ...values.reverse()]) assert.equal(kept.hash(value), hmac(value), value);
  });
  it('encrypts and decrypts; tampering is detected', () => {
    const sealed = secrets.encrypt('hello');
    assert.notEqual(sealed, secrets.encrypt('hello'));
    assert.equal(secrets.decrypt(sealed), 'hello');
    const raw = Buffer.from(sealed, 'base64url');
    raw[raw.length - 1]! ^= 1;
    assert.throws(() => secrets.decrypt(raw.toString('base64url')));
  });
  it('signs tokens for a purpose until they expire', () => {
    const token = secrets.sign('file-access', { fileId: 'abc' }, 2000);
    assert.deepEqual(secrets.verify('file-access', token, 1999), { fileId: 'abc' });
    assert.equal(secrets.verify('file-access', token, 2000), null, 'expired');
    assert.equal(secrets.verify('url-access', token, 1000), null, 'other purpose');
    assert.equal(secrets.verify('file-access', token.slice(0, -2) + 'AA', 1000), null, 'forged');
    assert.equal(new Secrets('z'.repeat(40)).verify('file-access', token, 1000), null, 'other secret');
    assert.equal(secrets.verify('file-access', 'garbage', 1000), null);
  });
  it('generates a secret once and keeps it in the data folder', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-secret-'));
    try {
      const first = loadOrCreateSecret(dir);
      assert.ok(first.length >= 32);
      assert.equal(loadOrCreateSecret(dir), first);
      assert.equal((await readFile(path.join(dir, 'secret'), 'utf8')).trim(), first);
      assert.equal((await stat(path.join(dir, 'secret'))).mode & 0o777, 0o600);
      assert.equal(loadOrCreateSecret(dir, 'from-env'.repeat(5)), 'from-env'.repeat(5));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
