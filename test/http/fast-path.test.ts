// The fast path (src/http/serving/fast-path.ts) takes plain redirects and small public files before Fastify and answers
// them with the routes' own plans and renderers. These tests check what it takes and what it leaves to the routes, that
// the answers are the same either way (the route answers the same request with a query added, which the fast path
// leaves to it), views counted once, and the route's metrics counting it.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { flushViews } from '../../src/services/serving/view-counts.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

/** Status, headers (but Date) and body of an answer. */
async function answerOf(res: Response): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'date') headers[name] = value;
  });
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

forEachDatabase('the fast path for redirects and small files', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    user = await server().setup('fast', 'fast-password');
  });

  const fastAnswers = () => server().ctx.metrics.fastPathAnswers.value;

  /** GET `path` twice, through the fast path and (with a query added) through the route; asserts both answer alike. */
  const sameAsRoute = async (path: string) => {
    const before = fastAnswers();
    const fast = await answerOf(await server().fetch(path));
    assert.equal(fastAnswers(), before + 1, `the fast path answered ${path}`);
    const routed = await answerOf(await server().fetch(`${path}?compare=1`));
    assert.equal(fastAnswers(), before + 1, `the route answered ${path}?compare=1`);
    assert.deepEqual(fast, routed);
    return fast;
  };

  it('a plain short URL: the route’s redirect, each view counted once, in the route’s metrics', async () => {
    const made = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/fast?a=b&c=%C3%A9' },
    });
    assert.equal(made.status, 200);
    const answer = await sameAsRoute(`/go/${made.body.code}`);
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.location, 'https://example.com/fast?a=b&c=%C3%A9');
    assert.equal(answer.headers['cache-control'], 'no-store');
    await flushViews(server().ctx);
    const listed = await server().json('GET', `/api/user/urls/${made.body.id}`, { auth: user.token });
    assert.equal(listed.body.views, 2);
    const { text } = await server().ctx.metrics.exposition();
    assert.match(text, /chute_http_requests_total\{method="GET",route="\/go\/:slug",status_code="302"\} 2\b/);
  });

  it('small public files of several types: the route’s bytes and headers, views counted once each', async () => {
    const files = [
      await uploadOne(server(), user.token, 'plain text', { name: 'a.txt', type: 'text/plain' }),
      await uploadOne(server(), user.token, '<script>alert(1)</script>', { name: 'b.html', type: 'text/html' }),
      await uploadOne(server(), user.token, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), {
        name: 'c.png',
        type: 'image/png',
      }),
      await uploadOne(server(), user.token, 'kept name', {
        name: 'résumé final.txt',
        type: 'text/plain',
        headers: { 'x-service-original-name': 'true' },
      }),
    ];
    for (const file of files) {
      const path = `/raw/${file.name}`;
      // The first read goes to the route, which keeps the bytes in memory; from then on the fast path answers.
      const before = fastAnswers();
      const first = await answerOf(await server().fetch(path));
      assert.equal(fastAnswers(), before, 'bytes not in memory yet: the route answers');
      const fast = await sameAsRoute(path);
      assert.deepEqual(fast, first);
      assert.equal(fast.status, 200);
      assert.equal(fast.body.length, file.size);
    }
    await flushViews(server().ctx);
    for (const file of files) {
      const res = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
      assert.equal(res.body.views, 3, file.name);
    }
  });

  it('leaves to the routes whatever is not plain, and they answer as always', async () => {
    const plain = await uploadOne(server(), user.token, 'plain bytes', { name: 'p.txt', type: 'text/plain' });
    await server()
      .fetch(`/raw/${plain.name}`)
      .then((r) => r.arrayBuffer());
    const locked = await uploadOne(server(), user.token, 'locked', { headers: { 'x-service-password': 'pw' } });
    const limited = await uploadOne(server(), user.token, 'limited', { headers: { 'x-service-max-views': '1' } });
    const hidden = await uploadOne(server(), user.token, 'hidden', { headers: { 'x-service-private': 'true' } });
    const lockedUrl = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/locked' },
      headers: { 'x-service-password': 'pw' },
    });
    const offUrl = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/off', enabled: false },
    });
    const before = fastAnswers();
    const cases: Array<[string, RequestInit, number]> = [
      [`/raw/${plain.name}`, { headers: { range: 'bytes=0-3' } }, 206],
      [`/raw/${plain.name}`, { headers: { 'if-none-match': `"${plain.id}-${plain.size.toString(36)}"` } }, 304],
      [`/raw/${plain.name}`, { method: 'HEAD' }, 200],
      [`/raw/${locked.name}`, {}, 403],
      [`/raw/${hidden.name}`, {}, 404],
      [`/raw/${limited.name}`, {}, 200],
      [`/raw/${limited.name}`, {}, 404],
      ['/raw/no-such-file.txt', {}, 404],
      [`/go/${lockedUrl.body.code}`, { headers: { accept: 'application/json' } }, 200],
      [`/go/${offUrl.body.code}`, { headers: { accept: 'application/json' } }, 404],
      ['/go/no-such-code', { headers: { accept: 'application/json' } }, 404],
    ];
    for (const [path, init, status] of cases) {
      const res = await server().fetch(path, init);
      await res.arrayBuffer();
      assert.equal(res.status, status, `${init.method ?? 'GET'} ${path} ${JSON.stringify(init.headers ?? {})}`);
    }
    assert.equal(fastAnswers(), before, 'none of these went the fast way');
    // A rename and a delete are seen at once (the look-up reads the database every time).
    const renamed = await server().json('PATCH', `/api/user/files/${plain.id}`, {
      auth: user.token,
      body: { name: 'renamed-p.txt' },
    });
    assert.equal(renamed.status, 200);
    assert.equal((await server().fetch(`/raw/${plain.name}`)).status, 404);
    assert.equal((await server().fetch('/raw/renamed-p.txt')).status, 200);
    await server().json('DELETE', `/api/user/files/${plain.id}`, { auth: user.token });
    assert.equal((await server().fetch('/raw/renamed-p.txt')).status, 404);
  });
});
