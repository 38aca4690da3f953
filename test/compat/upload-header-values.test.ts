// Upload header values as Zipline's clients send them: file names URL-encoded (Zipline's dashboard sends
// encodeURIComponent(name) in x-zipline-p-filename; scripts do the same for x-zipline-filename), max views 0 for "no
// limit", the format gfycat, dates as date=<JS Date string>, and no-json answers joined with ",".
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { createTestUser } from '../support/content.js';
import { sendChunk, waitForAssembly } from '../support/chunked-uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { upload } from '../support/uploads.js';

forEachDatabase('compat: upload header values as Zipline clients send them', (engine) => {
  const clock = new ManualClock(Date.parse('2031-05-01T08:00:00Z'));
  const server = useTestServer({ engine, clock });
  let user: TestUser;
  before(async () => {
    await server().setup();
    user = await createTestUser(server(), 'zipline-client');
  });

  const fileOf = async (id: string) => (await server().json('GET', `/api/user/files/${id}`, { auth: user.token })).body;
  const text = (name = 'a.txt') => [{ name, content: 'text', type: 'text/plain' }];

  it('x-zipline-filename is URL-decoded once: "summer%20trip%20%C3%A9t%C3%A9" is stored as "summer trip été"', async () => {
    const res = await upload(server(), user.token, text(), { 'x-zipline-filename': 'summer%20trip%20%C3%A9t%C3%A9' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.files[0].name, 'summer trip été.txt');
    // Decoded once only: an encoded % stays a %.
    const once = await upload(server(), user.token, text(), { 'x-service-filename': '100%2525' });
    assert.equal(once.body.files[0].name, '100%25.txt');
    // An encoded slash is still a path separator once decoded.
    const slash = await upload(server(), user.token, text(), { 'x-zipline-filename': 'a%2Fb' });
    assert.equal(slash.body.code, 1007);
    const bad = await upload(server(), user.token, text(), { 'x-zipline-filename': '100%' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 1009);
  });

  it('x-zipline-p-filename is URL-decoded once, as Zipline’s dashboard sends it', async () => {
    const bytes = Buffer.from('chunked');
    const res = await sendChunk(server(), user.token, {
      file: bytes,
      start: 0,
      end: bytes.length - 1,
      fileName: 'x.txt',
      type: 'text/plain',
      headers: {
        'x-service-p-filename': undefined,
        'x-zipline-p-filename': encodeURIComponent('holiday notes #2 (été).txt'),
        'x-zipline-original-name': 'true',
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const record = await waitForAssembly(server(), user.token, res.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE');
    assert.equal((await fileOf(record.fileId!)).originalName, 'holiday notes #2 (été).txt');
  });

  it('x-zipline-max-views: 0 means no limit (Zipline ignores it); a negative value is 1001 naming the header sent', async () => {
    const res = await upload(server(), user.token, text(), { 'x-zipline-max-views': '0' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await fileOf(res.body.files[0].id)).maxViews, null);
    const negative = await upload(server(), user.token, text(), { 'x-zipline-max-views': '-1' });
    assert.equal(negative.body.code, 1001);
    assert.match(
      negative.body.error,
      /x-zipline-max-views must be a whole number from 0 to 2147483647 \(0 means no limit\)$/,
    );
    assert.equal(negative.body.header, 'x-zipline-max-views');
    const own = await upload(server(), user.token, text(), { 'x-service-max-views': '2147483648' });
    assert.match(own.body.error, /x-service-max-views must be a whole number from 0 to 2147483647/);
    // Every option header's error names it as sent: a Zipline config's author finds the line to fix.
    for (const [name, value] of [
      ['x-zipline-deletes-at', 'someday'],
      ['x-zipline-format', 'fancy'],
      ['x-zipline-file-extension', 'p/g'],
      ['x-zipline-no-json', 'maybe'],
      ['x-zipline-original-name', 'perhaps'],
      ['x-zipline-image-compression-percent', '101'],
      ['x-zipline-image-compression-type', 'gif'],
    ] as const) {
      const bad = await upload(server(), user.token, text(), { [name]: value });
      assert.equal(bad.body.code, 1001, name);
      assert.ok(bad.body.error.includes(`${name} `), `${name}: ${bad.body.error}`);
      assert.equal(bad.body.header, name);
    }
    // Both sent: the x-service- one is read, and named.
    const both = await upload(server(), user.token, text(), {
      'x-service-max-views': 'x',
      'x-zipline-max-views': '3',
    });
    assert.equal(both.body.header, 'x-service-max-views');
  });

  it('x-zipline-format: gfycat names the file with random words', async () => {
    const res = await upload(server(), user.token, text(), { 'x-zipline-format': 'gfycat' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.files[0].name, /^[a-z]+-[a-z]+-[a-z]+\.txt$/);
  });

  it('x-zipline-deletes-at: date=<JS Date string>, RFC 1123 and ISO forms, lower-cased as Zipline reads them', async () => {
    const at = new Date('2031-06-01T10:30:00Z');
    for (const value of [
      `date=${at.toString()}`,
      `date=${at.toUTCString()}`,
      `date=${at.toISOString()}`,
      `date=${at.toString().toLowerCase()}`,
    ]) {
      const res = await upload(server(), user.token, text(), { 'x-zipline-deletes-at': value });
      assert.equal(res.status, 200, `${value}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.deletesAt, at.toISOString(), value);
    }
    const past = await upload(server(), user.token, text(), {
      'x-zipline-deletes-at': `date=${new Date('2031-04-01T00:00:00Z').toUTCString()}`,
    });
    assert.equal(past.body.code, 1001);
    const junk = await upload(server(), user.token, text(), { 'x-zipline-deletes-at': 'date=someday' });
    assert.equal(junk.body.code, 1001);
  });

  it('x-zipline-no-json joins the links with ","', async () => {
    const res = await upload(server(), user.token, [...text('a.txt'), ...text('b.txt')], {
      'x-zipline-no-json': 'true',
    });
    assert.equal(res.status, 200);
    const links = (res.body as string).split(',');
    assert.equal(links.length, 2);
    for (const link of links) assert.match(link, /^https?:\/\/[^,\s]+\/u\/[A-Za-z0-9]+\.txt$/);
  });
});
