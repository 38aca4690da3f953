// Image processing at upload: metadata (EXIF GPS) removal by header, by setting and by the Zipline header name, and
// compression to jpg, png or webp; the served bytes are checked, not only the answer.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, it } from 'node:test';
import sharp from 'sharp';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { hasGps, photo } from '../../support/media.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { filesUnder } from '../../support/stored.js';
import { upload } from '../../support/uploads.js';

const PARIS = { latitude: '48/1 51/1 2400/100', longitude: '2/1 17/1 4000/100' };

async function served(server: TestServer, name: string): Promise<{ bytes: Buffer; type: string | null }> {
  const res = await server.fetch(`/raw/${encodeURIComponent(name)}`);
  assert.equal(res.status, 200);
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

forEachDatabase('image processing at upload', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let admin: TestUser;
  let user: TestUser;
  let gpsPhoto: Buffer;
  before(async () => {
    admin = await server().setup();
    user = await makeUser(server());
    gpsPhoto = await photo(640, 480, { gps: PARIS });
    assert.equal(await hasGps(gpsPhoto), true, 'the test photo carries GPS data');
  });

  it('removes the GPS position (and the other metadata) with x-service-remove-gps', async () => {
    const res = await upload(server(), user.token, [{ name: 'trip.jpg', content: gpsPhoto, type: 'image/jpeg' }], {
      'x-service-remove-gps': 'true',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.files[0].removedGps, true);
    assert.equal(res.body.files[0].compressed, undefined);
    const { bytes, type } = await served(server(), res.body.files[0].name);
    assert.equal(type, 'image/jpeg');
    assert.equal(await hasGps(bytes), false, 'no GPS in the served bytes');
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.exif, undefined, 'no EXIF at all');
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.width, 640);
    assert.equal(meta.height, 480);
  });

  it('keeps the bytes as they came without the header and the setting', async () => {
    const res = await upload(server(), user.token, [{ name: 'kept.jpg', content: gpsPhoto, type: 'image/jpeg' }]);
    assert.equal(res.body.files[0].removedGps, undefined);
    const { bytes } = await served(server(), res.body.files[0].name);
    assert.ok(bytes.equals(gpsPhoto));
  });

  it('accepts the Zipline name of the header', async () => {
    const res = await upload(server(), user.token, [{ name: 'z.jpg', content: gpsPhoto, type: 'image/jpeg' }], {
      'x-zipline-remove-gps': 'true',
    });
    assert.equal(res.body.files[0].removedGps, true);
    assert.equal(await hasGps((await served(server(), res.body.files[0].name)).bytes), false);
  });

  it('removes GPS from every image when the setting filesRemoveGpsMetadata is on (a header false still opts out)', async () => {
    const on = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { filesRemoveGpsMetadata: true },
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    try {
      const res = await upload(server(), user.token, [{ name: 's.jpg', content: gpsPhoto, type: 'image/jpeg' }]);
      assert.equal(res.body.files[0].removedGps, true);
      assert.equal(await hasGps((await served(server(), res.body.files[0].name)).bytes), false);
      const optOut = await upload(server(), user.token, [{ name: 'o.jpg', content: gpsPhoto, type: 'image/jpeg' }], {
        'x-service-remove-gps': 'false',
      });
      assert.equal(optOut.body.files[0].removedGps, undefined);
      assert.ok((await served(server(), optOut.body.files[0].name)).bytes.equals(gpsPhoto));
    } finally {
      await server().json('PATCH', '/api/server/settings', {
        auth: admin.token,
        body: { filesRemoveGpsMetadata: false },
      });
    }
  });

  for (const [type, mimetype, ext, format] of [
    ['webp', 'image/webp', '.webp', 'webp'],
    ['png', 'image/png', '.png', 'png'],
    ['jpg', 'image/jpeg', '.jpg', 'jpeg'],
  ] as const) {
    it(`compresses to ${type}: the answer and the stored file take its type and extension`, async () => {
      const res = await upload(server(), user.token, [{ name: 'c.jpg', content: gpsPhoto, type: 'image/jpeg' }], {
        'x-service-image-compression-percent': '40',
        'x-service-image-compression-type': type,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const file = res.body.files[0];
      assert.deepEqual(file.compressed, { mimetype, ext });
      assert.equal(file.type, mimetype);
      assert.ok(file.name.endsWith(ext), file.name);
      const bytes = await served(server(), file.name);
      assert.equal(bytes.type, mimetype);
      const meta = await sharp(bytes.bytes).metadata();
      assert.equal(meta.format, format);
      assert.equal(await hasGps(bytes.bytes), false, 'compression drops the metadata too');
      assert.equal(file.size, bytes.bytes.length);
    });
  }

  it('stores a file that is not the image its type says as it came, saying the compression failed', async () => {
    const text = Buffer.from('not a picture at all\n'.repeat(20));
    const res = await upload(server(), user.token, [{ name: 'fake.png', content: text, type: 'image/png' }], {
      'x-zipline-image-compression-percent': '50',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.files[0].compressed, { mimetype: 'image/png', ext: '.png', failed: true });
    assert.ok((await served(server(), res.body.files[0].name)).bytes.equals(text));
    assert.deepEqual(await filesUnder(path.join(server().dataDir, 'tmp')), [], 'no temp file left behind');
  });

  it('leaves files that are not images alone', async () => {
    const res = await upload(server(), user.token, [{ name: 'a.txt', content: 'hello', type: 'text/plain' }], {
      'x-service-image-compression-percent': '50',
      'x-service-remove-gps': 'true',
    });
    assert.equal(res.body.files[0].compressed, undefined);
    assert.equal(res.body.files[0].removedGps, undefined);
  });

  it('refuses bad values of the headers with 1001 naming the header', async () => {
    for (const [header, value] of [
      ['x-service-image-compression-percent', '101'],
      ['x-service-image-compression-percent', 'half'],
      ['x-service-image-compression-type', 'gif'],
      ['x-service-remove-gps', 'maybe'],
    ] as const) {
      const res = await upload(server(), user.token, [{ name: 'p.jpg', content: gpsPhoto, type: 'image/jpeg' }], {
        [header]: value,
        ...(header === 'x-service-image-compression-type' ? { 'x-service-image-compression-percent': '50' } : {}),
      });
      assert.equal(res.status, 400, `${header}: ${value}`);
      assert.equal(res.body.code, 1001);
      assert.equal(res.body.header, header);
    }
  });
});
