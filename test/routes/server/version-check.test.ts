// The update check of GET /api/version (setting featuresVersionChecking, off by default), against a real local HTTP
// server standing in for the release feed: one that answers a version, one that answers 500, one that never answers.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { isNewerVersion } from '../../../src/services/operations/version.js';
import { assertError } from '../../support/api-errors.js';
import { forEachDatabase, useTestServer, withTestServer, type TestServer } from '../../support/server.js';

interface Feed {
  url: string;
  /** The requests it had, by path. */
  hits: Map<string, IncomingMessage[]>;
  close(): Promise<void>;
}

/** The release feed: /github answers as GitHub's releases API, /plain as a feed of one's own, /old an old release,
 *  /broken 500, /garbage no version, /silent never answers. */
async function startFeed(): Promise<Feed> {
  const hits = new Map<string, IncomingMessage[]>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, [...(hits.get(path) ?? []), req]);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/github')
      json(200, { tag_name: 'v99.1.0', html_url: 'https://example.test/releases/v99.1.0', body: 'notes' });
    else if (path === '/plain') json(200, { version: '99.2.0' });
    else if (path === '/old') json(200, { tag_name: 'v0.0.1' });
    else if (path === '/broken') json(500, { message: 'feed is down' });
    else if (path === '/garbage') json(200, { hello: 'world' });
    else if (path === '/silent')
      return; // never answers
    else json(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function turnOn(server: TestServer): Promise<string> {
  const admin = await server.setup();
  const res = await server.json('PATCH', '/api/server/settings', {
    auth: admin.token,
    body: { featuresVersionChecking: true },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return admin.token;
}

it('compares versions numerically, a release above its pre-releases', () => {
  assert.equal(isNewerVersion('0.10.0', '0.9.9'), true);
  assert.equal(isNewerVersion('v1.0.0', '1.0.0'), false);
  assert.equal(isNewerVersion('1.0.0', '1.0.0-rc.2'), true);
  assert.equal(isNewerVersion('1.0.0-rc.10', '1.0.0-rc.2'), true);
  assert.equal(isNewerVersion('0.1.0', '0.2.0'), false);
});

forEachDatabase('version update check', (engine) => {
  let feed: Feed;
  before(async () => {
    feed = await startFeed();
  });
  after(async () => {
    await feed.close();
  });
  const server = useTestServer(() => ({ engine, env: { VERSION_CHECK_URL: `${feed.url}/github` } }));

  it('is off by default: the running version only, and the feed is never asked', async () => {
    const admin = await server().setup();
    const settings = await server().json('GET', '/api/server/settings', { auth: admin.token });
    assert.equal(settings.body.settings.featuresVersionChecking, false);
    const res = await server().json('GET', '/api/version', { auth: admin.token });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['version']);
    assert.equal(feed.hits.get('/github'), undefined);
  });

  it("answers the feed's latest release, whether it is newer, and keeps the answer", async () => {
    const token = await server().json('PATCH', '/api/server/settings', {
      auth: server().superadmin!.token,
      body: { featuresVersionChecking: true },
    });
    assert.equal(token.status, 200);
    const user = server().superadmin!.token;
    const first = await server().json('GET', '/api/version', { auth: user });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(typeof first.body.version, 'string');
    assert.equal(first.body.update.latest, '99.1.0');
    assert.equal(first.body.update.url, 'https://example.test/releases/v99.1.0');
    assert.equal(first.body.update.available, true);
    assert.equal(first.body.update.cached, false);
    const second = await server().json('GET', '/api/version', { auth: user });
    assert.equal(second.body.update.latest, '99.1.0');
    assert.equal(second.body.update.cached, true);
    assert.equal(feed.hits.get('/github')?.length, 1, 'the second answer is the kept one');
    assert.match(feed.hits.get('/github')![0]!.headers['user-agent'] ?? '', /Chute/);
  });

  it('reads a plain {version} feed, and says no update when the latest is older', async () => {
    await withTestServer({ engine, env: { VERSION_CHECK_URL: `${feed.url}/plain` } }, async (s) => {
      const token = await turnOn(s);
      const res = await s.json('GET', '/api/version', { auth: token });
      assert.equal(res.body.update.latest, '99.2.0');
      assert.equal(res.body.update.url, null);
    });
    await withTestServer({ engine, env: { VERSION_CHECK_URL: `${feed.url}/old` } }, async (s) => {
      const token = await turnOn(s);
      const res = await s.json('GET', '/api/version', { auth: token });
      assert.equal(res.body.update.latest, '0.0.1');
      assert.equal(res.body.update.available, false);
    });
  });

  it('answers 6001 when the feed answers 500, and asks again next time', async () => {
    await withTestServer({ engine, env: { VERSION_CHECK_URL: `${feed.url}/broken` } }, async (s) => {
      const token = await turnOn(s);
      const res = await s.json('GET', '/api/version', { auth: token });
      assertError(res, 500, 6001);
      assert.match(res.body.error, /answered 500/);
      assertError(await s.json('GET', '/api/version', { auth: token }), 500, 6001);
      assert.equal(feed.hits.get('/broken')?.length, 2, 'a failure is not kept');
    });
  });

  it('answers 6001 when the feed answers no version', async () => {
    await withTestServer({ engine, env: { VERSION_CHECK_URL: `${feed.url}/garbage` } }, async (s) => {
      const token = await turnOn(s);
      const res = await s.json('GET', '/api/version', { auth: token });
      assertError(res, 500, 6001);
      assert.match(res.body.error, /no version/);
    });
  });

  it('answers 6001 when the feed does not answer within VERSION_CHECK_TIMEOUT, and keeps serving', async () => {
    const env = { VERSION_CHECK_URL: `${feed.url}/silent`, VERSION_CHECK_TIMEOUT: '1' };
    await withTestServer({ engine, env }, async (s) => {
      const token = await turnOn(s);
      const res = await s.json('GET', '/api/version', { auth: token });
      assertError(res, 500, 6001);
      assert.match(res.body.error, /no answer within 1000 ms/);
      assert.equal(feed.hits.get('/silent')?.length, 1);
      const me = await s.json('GET', '/api/user', { auth: token });
      assert.equal(me.status, 200);
    });
  });
});
