// Zipline's public addresses outside the API: /view/url/<id> (the password page of a protected short URL, where
// Zipline's /go sends visitors and its links point), /robots.txt and /manifest.json (404 while their setting is off),
// the favicons its manifest lists, and invite links /invite/<code>.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import sharp from 'sharp';
import { FAVICON_SVG } from '../../src/services/serving/site-files.js';
import { makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

function formPost(password: string): RequestInit {
  return {
    method: 'POST',
    headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password }),
  };
}

forEachDatabase('compat: Zipline pages and site files', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  let ann: TestUser;
  before(async () => {
    root = await server().setup();
    ann = await makeUser(server(), { username: 'ann' });
  });

  const setSettings = async (body: Record<string, unknown>) => {
    const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  it('/view/url/<id>: the password form of a protected URL; the right password leads to the destination', async () => {
    const created = await server().json('POST', '/api/user/urls', {
      auth: ann.token,
      headers: { 'x-zipline-password': 'letmein' },
      body: { destination: 'https://example.com/behind', vanity: 'guarded' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id;
    const page = await server().fetch(`/view/url/${id}`, { headers: BROWSER });
    assert.equal(page.status, 200); // as Zipline's page; test/http/password-pages.test.ts
    const html = await page.text();
    assert.ok(html.includes('This link is password protected'));
    assert.ok(!html.includes('example.com/behind'));

    assert.equal((await server().fetch(`/view/url/${id}`, formPost('wrong'))).status, 200);
    const right = await server().fetch(`/view/url/${id}`, formPost('letmein'));
    assert.equal(right.status, 303);
    const location = right.headers.get('location') ?? '';
    assert.match(location, /^\/go\/guarded\?token=[^&]+$/);
    const followed = await server().fetch(location);
    assert.equal(followed.status, 302);
    assert.equal(followed.headers.get('location'), 'https://example.com/behind');
    // With the token, /view/url itself sends the visitor on to the link.
    const token = new URL(location, server().url).searchParams.get('token')!;
    const viaView = await server().fetch(`/view/url/${id}?token=${encodeURIComponent(token)}`);
    assert.equal(viaView.status, 302);
    assert.equal(viaView.headers.get('location'), location);
  });

  it('/view/url/<id> of an open URL goes to its link; of a missing one: 404', async () => {
    const open = await server().json('POST', '/api/user/urls', {
      auth: ann.token,
      body: { destination: 'https://example.com/open' },
    });
    const res = await server().fetch(`/view/url/${open.body.id}`);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), `/go/${open.body.code}`);
    const missing = await server().fetch('/view/url/no-such-url', { headers: BROWSER });
    assert.equal(missing.status, 404);
    assert.equal((await server().json('GET', '/view/url/no-such-url')).body.code, 9002);
  });

  it('/robots.txt keeps crawlers away while siteRobotsTxt is on, as Zipline’s; 404 while off', async () => {
    assert.equal((await server().json('GET', '/robots.txt')).body.code, 9002);
    await setSettings({ siteRobotsTxt: true });
    const res = await server().fetch('/robots.txt');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await res.text(), 'User-Agent: *\nDisallow: /\n');
    await setSettings({ siteRobotsTxt: false });
  });

  it('/manifest.json is Zipline’s web manifest while sitePwaEnabled is on; its icons are served', async () => {
    assert.equal((await server().fetch('/manifest.json')).status, 404);
    await setSettings({ sitePwaEnabled: true, sitePwaShortName: 'Drops', sitePwaThemeColor: '#1c7ed6' });
    const res = await server().fetch('/manifest.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/manifest\+json/);
    const manifest = await res.json();
    assert.deepEqual(manifest, {
      name: 'Chute',
      short_name: 'Drops',
      description: 'Chute',
      theme_color: '#1c7ed6',
      background_color: '#000000',
      start_url: '/',
      display: 'standalone',
      icons: [16, 32, 64, 128, 512].map((n) => ({
        src: `/favicon-${n}x${n}.png`,
        sizes: `${n}x${n}`,
        type: 'image/png',
      })),
    });
    for (const icon of manifest.icons as Array<{ src: string; sizes: string }>) {
      const png = await server().fetch(icon.src);
      assert.equal(png.status, 200, icon.src);
      assert.equal(png.headers.get('content-type'), 'image/png');
      const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
      assert.equal(`${meta.width}x${meta.height}`, icon.sizes);
    }
    assert.equal((await server().fetch('/favicon-20x20.png')).status, 404);
    assert.equal((await server().fetch('/favicon-16x32.png')).status, 404);
    await setSettings({ sitePwaEnabled: false });
  });

  it('the icons are drawn from the dashboard’s own icon', async () => {
    const dashboardIcon = await readFile(new URL('../../web/public/assets/favicon.svg', import.meta.url), 'utf8');
    assert.equal(FAVICON_SVG, dashboardIcon.trim());
  });

  it('/favicon.ico is an icon file holding the 16, 32 and 64 pixel icons', async () => {
    const res = await server().fetch('/favicon.ico');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/x-icon');
    const ico = Buffer.from(await res.arrayBuffer());
    assert.equal(ico.readUInt16LE(2), 1, 'an icon');
    assert.equal(ico.readUInt16LE(4), 3, 'three images');
    const sizes = [0, 1, 2].map((i) => ico.readUInt8(6 + 16 * i));
    assert.deepEqual(sizes, [16, 32, 64]);
    const firstOffset = ico.readUInt32LE(6 + 12);
    assert.equal(ico.subarray(firstOffset, firstOffset + 4).toString('latin1'), '\x89PNG');
  });

  it('/invite/<code> leads to the registration page with the code', async () => {
    const res = await server().fetch('/invite/abc123');
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/auth/register?code=abc123');
  });
});

forEachDatabase('compat: Zipline password answers', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let ann: TestUser;
  before(async () => {
    await server().setup();
    ann = await makeUser(server(), { username: 'ann' });
  });

  it('POST /api/user/urls/:id/password answers {success: true} beside the token, by id, code or vanity', async () => {
    const created = await server().json('POST', '/api/user/urls', {
      auth: ann.token,
      headers: { 'x-zipline-password': 'pw' },
      body: { destination: 'https://example.com/x', vanity: 'locked' },
    });
    for (const key of [created.body.id, created.body.code, 'locked']) {
      const res = await server().json('POST', `/api/user/urls/${key}/password`, { body: { password: 'pw' } });
      assert.equal(res.status, 200, `${key}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.success, true);
      assert.equal(typeof res.body.token, 'string');
    }
    const wrong = await server().json('POST', '/api/user/urls/locked/password', { body: { password: 'no' } });
    assert.equal(wrong.body.code, 3005);
  });

  it('POST /api/user/files/:id/password answers {success: true} beside the token', async () => {
    const form = new FormData();
    form.append('file', new Blob(['secret bytes']), 'secret.txt');
    const uploaded = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: ann.token, 'x-zipline-password': 'pw' },
      body: form,
    });
    const file = ((await uploaded.json()) as { files: Array<{ id: string }> }).files[0]!;
    const res = await server().json('POST', `/api/user/files/${file.id}/password`, { body: { password: 'pw' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(await (await fetch(res.body.url)).text(), 'secret bytes');
  });
});
