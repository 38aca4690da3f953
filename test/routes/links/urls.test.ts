import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { urlBySlug } from '../../../src/services/links/short-urls.js';
import { createTestUser, setUrlQuota } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';

forEachDatabase('short URLs', (engine) => {
  const server = useTestServer({ engine, env: { SITE_TITLE: '<b>"Chute"</b>' } });
  let admin: TestUser;
  let bob: TestUser;
  before(async () => {
    admin = await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  const shorten = (auth: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    server().json('POST', '/api/user/urls', { auth, body, headers });

  it('shortens an http(s) URL and redirects to it with 302, counting each view', async () => {
    const res = await shorten(admin.token, { destination: 'https://example.com/a?b=c' });
    assert.equal(res.status, 200);
    assert.equal(res.body.destination, 'https://example.com/a?b=c');
    assert.equal(res.body.code.length, 6);
    assert.equal(res.body.vanity, null);
    assert.equal(res.body.enabled, true);
    assert.equal(res.body.passwordProtected, false);
    assert.equal(res.body.userId, admin.id);
    assert.equal(res.body.url, `${server().url}/go/${res.body.code}`);

    for (let i = 0; i < 3; i++) {
      const go = await server().fetch(`/go/${res.body.code}`);
      assert.equal(go.status, 302);
      assert.equal(go.headers.get('location'), 'https://example.com/a?b=c');
    }
    const read = await server().json('GET', `/api/user/urls/${res.body.id}`, { auth: admin.token });
    assert.equal(read.body.views, 3);
  });

  it('refuses destinations that are not http(s) URLs with 400 / 1000', async () => {
    for (const destination of [
      'javascript:alert(1)',
      'ftp://example.com/x',
      'data:text/html,hi',
      'not a url',
      '/relative',
    ]) {
      const res = await shorten(admin.token, { destination });
      assert.equal(res.status, 400, destination);
      assert.equal(res.body.code, 1000, destination);
      assert.match(res.body.error, /http/);
    }
  });

  it('the redirect is one statement served by primary-key look-ups, never a table scan', async () => {
    const { db } = server().ctx;
    const compiled = urlBySlug(db, 'some-slug').compile();
    let plan: string;
    if (engine === 'sqlite') {
      const rows = await db.executeQuery(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      plan = JSON.stringify(rows.rows);
      assert.match(plan, /SEARCH url_slugs USING (INDEX|PRIMARY KEY)/);
      assert.match(plan, /SEARCH urls USING (INDEX|PRIMARY KEY)/);
      assert.doesNotMatch(plan, /SCAN/);
    } else {
      // With sequential scans priced out, the plan shows that the indexes can answer it (tiny test tables would
      // otherwise legitimately be scanned).
      plan = await db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const rows = await trx.executeQuery(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
        return JSON.stringify(rows.rows);
      });
      assert.match(plan, /Index Scan using url_slugs_pkey/);
      assert.match(plan, /Index Scan using urls_pkey/);
      assert.doesNotMatch(plan, /Seq Scan/);
    }
  });

  it('counting a view leaves the durability settings of the connection as they were', async () => {
    const res = await shorten(admin.token, { destination: 'https://example.com/durable' });
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 302);
    assert.equal((await server().fetch('/go/no-such-link-at-all')).status, 404);
    if (engine === 'sqlite') {
      // NORMAL: every commit of the server's connection is flushed by its driver, off the event loop
      // (db/sqlite/commits.ts).
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(server().ctx.db);
      assert.equal(rows[0]!.synchronous, 1);
    } else {
      const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(server().ctx.db);
      const { rows: fresh } = await sql<{
        setting: string;
      }>`select reset_val as setting from pg_settings where name = 'synchronous_commit'`.execute(server().ctx.db);
      assert.equal(rows[0]!.synchronous_commit, fresh[0]!.setting, 'set local must not leak into the pooled session');
    }
    const read = await server().json('GET', `/api/user/urls/${res.body.id}`, { auth: admin.token });
    assert.equal(read.body.views, 1);
  });

  it('answers 404 for unknown links and needs no authentication to redirect', async () => {
    const res = await server().fetch('/go/nope-nothing-here');
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: number }).code, 9002);
  });

  it('uses a vanity; a taken vanity or code -> 400 / 1042 on create, as Zipline', async () => {
    const first = await shorten(admin.token, { destination: 'https://example.com/v', vanity: 'my-link' });
    assert.equal(first.status, 200);
    assert.equal(first.body.vanity, 'my-link');
    assert.equal(first.body.url, `${server().url}/go/my-link`);
    const go = await server().fetch('/go/my-link');
    assert.equal(go.headers.get('location'), 'https://example.com/v');
    // The random code keeps working too.
    assert.equal((await server().fetch(`/go/${first.body.code}`)).status, 302);

    const again = await shorten(bob.token, { destination: 'https://example.com/w', vanity: 'my-link' });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 1042);
    const codeClash = await shorten(bob.token, { destination: 'https://example.com/w', vanity: first.body.code });
    assert.equal(codeClash.status, 400);
    assert.equal(codeClash.body.code, 1042);

    const bad = await shorten(admin.token, { destination: 'https://example.com/w', vanity: 'a/b' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 1000);
  });

  it('concurrent requests for one vanity: exactly one gets it, the others 1042', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        shorten(i % 2 ? admin.token : bob.token, { destination: `https://example.com/r${i}`, vanity: 'raced' }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    for (const r of results.filter((r) => r.status !== 200)) {
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 1042);
    }
    const winner = results.find((r) => r.status === 200)!;
    assert.equal((await server().fetch('/go/raced')).headers.get('location'), winner.body.destination);
  });

  it('PATCH changes vanity, destination, enabled; a taken vanity -> 400 / 1041 (as Zipline), a code -> 1042', async () => {
    const a = await shorten(admin.token, { destination: 'https://example.com/1', vanity: 'patch-a' });
    const b = await shorten(admin.token, { destination: 'https://example.com/2' });
    let res = await server().json('PATCH', `/api/user/urls/${b.body.id}`, {
      auth: admin.token,
      body: { vanity: 'patch-a' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1041);
    res = await server().json('PATCH', `/api/user/urls/${b.body.id}`, {
      auth: admin.token,
      body: { vanity: a.body.code },
    });
    assert.equal(res.body.code, 1042);

    res = await server().json('PATCH', `/api/user/urls/${b.body.id}`, {
      auth: admin.token,
      body: { vanity: 'patch-b', destination: 'http://example.org/new' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.vanity, 'patch-b');
    assert.equal(res.body.url, `${server().url}/go/patch-b`);
    assert.equal((await server().fetch('/go/patch-b')).headers.get('location'), 'http://example.org/new');

    // The old vanity is free again once a URL lets go of it.
    res = await server().json('PATCH', `/api/user/urls/${a.body.id}`, { auth: admin.token, body: { vanity: null } });
    assert.equal(res.body.vanity, null);
    assert.equal((await server().fetch('/go/patch-a')).status, 404);
    res = await server().json('PATCH', `/api/user/urls/${b.body.id}`, {
      auth: admin.token,
      body: { vanity: 'patch-a' },
    });
    assert.equal(res.body.vanity, 'patch-a');

    res = await server().json('PATCH', `/api/user/urls/${b.body.id}`, {
      auth: admin.token,
      body: { destination: 'mailto:x@y' },
    });
    assert.equal(res.body.code, 1000);
  });

  it('a disabled URL answers 404 until enabled again', async () => {
    const res = await shorten(admin.token, { destination: 'https://example.com/off', enabled: false });
    assert.equal(res.body.enabled, false);
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 404);
    await server().json('PATCH', `/api/user/urls/${res.body.id}`, { auth: admin.token, body: { enabled: true } });
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 302);
  });

  it('x-service-max-views: redirects that many times, then 404 and the URL is removed', async () => {
    const res = await shorten(admin.token, { destination: 'https://example.com/max' }, { 'x-service-max-views': '2' });
    assert.equal(res.body.maxViews, 2);
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 302);
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 302);
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 404);
    const read = await server().json('GET', `/api/user/urls/${res.body.id}`, { auth: admin.token });
    assert.equal(read.status, 404);
  });

  it('HEAD answers like GET without spending a view (and without the Location of a view-limited link)', async () => {
    const open = await shorten(admin.token, { destination: 'https://example.com/open' });
    const openHead = await server().fetch(`/go/${open.body.code}`, { method: 'HEAD' });
    assert.equal(openHead.status, 302);
    assert.equal(openHead.headers.get('location'), 'https://example.com/open');
    const res = await shorten(admin.token, { destination: 'https://example.com/head' }, { 'x-service-max-views': '1' });
    for (let i = 0; i < 3; i++) {
      const head = await server().fetch(`/go/${res.body.code}`, { method: 'HEAD' });
      assert.equal(head.status, 302);
      assert.equal(head.headers.get('location'), null);
    }
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 302);
    assert.equal((await server().fetch(`/go/${res.body.code}`, { method: 'HEAD' })).status, 404);
    const locked = await shorten(
      admin.token,
      { destination: 'https://example.com/head-pw' },
      { 'x-service-password': 'pw' },
    );
    assert.equal((await server().fetch(`/go/${locked.body.code}`, { method: 'HEAD' })).status, 200);
    assert.equal((await server().fetch('/go/no-such-head', { method: 'HEAD' })).status, 404);
  });

  it('counts views atomically: concurrent visits never exceed max views', async () => {
    const res = await shorten(admin.token, { destination: 'https://example.com/race' }, { 'x-service-max-views': '5' });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        server()
          .fetch(`/go/${res.body.code}`)
          .then((r) => r.status),
      ),
    );
    assert.equal(statuses.filter((s) => s === 302).length, 5);
    assert.equal(statuses.filter((s) => s === 404).length, 15);
  });

  it('refuses a bad x-service-max-views or x-service-domain with 400 / 1001', async () => {
    for (const value of ['0', '-1', 'ten', '1.5']) {
      const res = await shorten(admin.token, { destination: 'https://example.com/' }, { 'x-service-max-views': value });
      assert.equal(res.status, 400, value);
      assert.equal(res.body.code, 1001, value);
    }
    const res = await shorten(
      admin.token,
      { destination: 'https://example.com/' },
      { 'x-service-domain': 'bad host/x' },
    );
    assert.equal(res.body.code, 1001);
  });

  it('x-service-domain sets the link host; x-service-no-json answers with the bare link', async () => {
    let res = await shorten(
      admin.token,
      { destination: 'https://example.com/d' },
      { 'x-service-domain': 'https://sho.rt' },
    );
    assert.equal(res.body.url, `https://sho.rt/go/${res.body.code}`);
    const raw = await server().fetch('/api/user/urls', {
      method: 'POST',
      headers: { authorization: admin.token, 'content-type': 'application/json', 'x-service-no-json': 'true' },
      body: JSON.stringify({ destination: 'https://example.com/plain', vanity: 'plain-link' }),
    });
    assert.match(raw.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await raw.text(), `${server().url}/go/plain-link`);
    res = await server().json('GET', '/api/user/urls?page=1&searchQuery=plain-link', { auth: admin.token });
    assert.equal(res.body.total, 1);
  });

  it('password: the link shows an escaped password page; the right password gives a token that redirects', async () => {
    const res = await shorten(
      admin.token,
      { destination: 'https://example.com/secret' },
      { 'x-service-password': 'open sesame' },
    );
    assert.equal(res.body.passwordProtected, true);
    assert.ok(!JSON.stringify(res.body).includes('open sesame'));
    assert.ok(!JSON.stringify(res.body).includes('argon2'));

    const page = await server().fetch(`/go/${res.body.code}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await page.text();
    assert.ok(!html.includes('example.com/secret'), 'the page must not reveal the destination');
    // A plain form posted back to the link itself (no script): see test/routes/organise/public-pages.test.ts.
    assert.ok(html.includes('<form class="unlock" method="post">'));
    assert.doesNotMatch(html, /<script/);
    assert.ok(html.includes('&lt;b&gt;&quot;Chute&quot;&lt;/b&gt;'), 'the site title is escaped');
    assert.ok(!html.includes('<b>"Chute"</b>'));

    let unlock = await server().json('POST', `/api/user/urls/${res.body.id}/password`, { body: { password: 'wrong' } });
    assert.equal(unlock.status, 403);
    assert.equal(unlock.body.code, 3005);
    unlock = await server().json('POST', `/api/user/urls/${res.body.id}/password`, {
      body: { password: 'open sesame' },
    });
    assert.equal(unlock.status, 200);
    assert.equal(unlock.body.url, `${server().url}/go/${res.body.code}?token=${encodeURIComponent(unlock.body.token)}`);

    const go = await server().fetch(`/go/${res.body.code}?token=${encodeURIComponent(unlock.body.token)}`);
    assert.equal(go.status, 302);
    assert.equal(go.headers.get('location'), 'https://example.com/secret');

    // A forged token, or one for another URL, only shows the page again.
    const other = await shorten(
      admin.token,
      { destination: 'https://example.com/other' },
      { 'x-service-password': 'pw' },
    );
    const forged = `${unlock.body.token.split('.')[0]}.AAAA`;
    for (const path of [
      `/go/${res.body.code}?token=${forged}`,
      `/go/${other.body.code}?token=${encodeURIComponent(unlock.body.token)}`,
    ]) {
      const again = await server().fetch(path);
      assert.equal(again.status, 200, path);
      assert.equal(again.headers.get('location'), null, path);
      assert.ok((await again.text()).includes('This link is password protected'), path);
    }

    // Removing the password makes it a plain redirect.
    await server().json('PATCH', `/api/user/urls/${res.body.id}`, { auth: admin.token, body: { password: null } });
    assert.equal((await server().fetch(`/go/${res.body.code}`)).status, 302);
  });

  it('maxUrls quota: concurrent shortens stop exactly at the limit with 403 / 3012', async () => {
    const carl = await createTestUser(server(), 'carl');
    await setUrlQuota(server(), carl.id, 3);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => shorten(carl.token, { destination: `https://example.com/q${i}` })),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 3);
    const refused = results.filter((r) => r.status !== 200);
    assert.equal(refused.length, 9);
    for (const r of refused) {
      assert.equal(r.status, 403);
      assert.equal(r.body.code, 3012);
    }
    const list = await server().json('GET', '/api/user/urls?page=1', { auth: carl.token });
    assert.equal(list.body.total, 3);
  });

  it("lists the caller's URLs, searchable by destination, vanity or code, paginated", async () => {
    const dana = await createTestUser(server(), 'dana');
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push((await shorten(dana.token, { destination: `https://list.example/${i}%_`, vanity: `dana-${i}` })).body);
    }
    let res = await server().json('GET', '/api/user/urls?perPage=2&page=1', { auth: dana.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 5);
    assert.equal(res.body.pages, 3);
    assert.equal(res.body.page.length, 2);
    res = await server().json('GET', '/api/user/urls?perPage=2&page=3', { auth: dana.token });
    assert.equal(res.body.page.length, 1);

    res = await server().json('GET', '/api/user/urls?page=1&searchQuery=DANA-3&searchField=vanity', {
      auth: dana.token,
    });
    assert.deepEqual(
      res.body.page.map((u: { id: string }) => u.id),
      [made[3].id],
    );
    res = await server().json('GET', `/api/user/urls?page=1&searchQuery=${made[1].code}&searchField=code`, {
      auth: dana.token,
    });
    assert.deepEqual(
      res.body.page.map((u: { id: string }) => u.id),
      [made[1].id],
    );
    res = await server().json(
      'GET',
      `/api/user/urls?page=1&searchQuery=${encodeURIComponent('example/2')}&searchField=destination`,
      {
        auth: dana.token,
      },
    );
    assert.deepEqual(
      res.body.page.map((u: { id: string }) => u.id),
      [made[2].id],
    );
    // LIKE wildcards in the search are literal characters.
    res = await server().json('GET', `/api/user/urls?page=1&searchQuery=${encodeURIComponent('4%_')}`, {
      auth: dana.token,
    });
    assert.deepEqual(
      res.body.page.map((u: { id: string }) => u.id),
      [made[4].id],
    );
    res = await server().json(
      'GET',
      `/api/user/urls?page=1&searchQuery=${encodeURIComponent('%')}&searchField=vanity`,
      {
        auth: dana.token,
      },
    );
    assert.equal(res.body.total, 0);
    // Only the caller's own.
    res = await server().json('GET', '/api/user/urls?page=1&searchQuery=dana', { auth: bob.token });
    assert.equal(res.body.total, 0);
  });

  it("another user's URL is 404 for GET, PATCH, DELETE; the owner deletes it", async () => {
    const mine = await shorten(admin.token, { destination: 'https://example.com/mine' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { enabled: false }],
      ['DELETE', undefined],
    ] as const) {
      const res = await server().json(method, `/api/user/urls/${mine.body.id}`, { auth: bob.token, body });
      assert.equal(res.status, 404, method);
      assert.equal(res.body.code, 9002);
    }
    assert.equal((await server().fetch(`/go/${mine.body.code}`)).status, 302);
    const anonymous = await server().json('GET', `/api/user/urls/${mine.body.id}`);
    assert.equal(anonymous.status, 401);

    const del = await server().json('DELETE', `/api/user/urls/${mine.body.id}`, { auth: admin.token });
    assert.equal(del.status, 200);
    assert.equal(del.body.id, mine.body.id);
    assert.equal((await server().fetch(`/go/${mine.body.code}`)).status, 404);
    const gone = await server().json('GET', `/api/user/urls/${mine.body.id}`, { auth: admin.token });
    assert.equal(gone.status, 404);
  });
});

forEachDatabase('short URLs under a configured prefix', (engine) => {
  const server = useTestServer({ engine, env: { URLS_ROUTE: '/l', URLS_LENGTH: '10' } });
  it('links and redirects use URLS_ROUTE and URLS_LENGTH', async () => {
    const admin = await server().setup();
    const res = await server().json('POST', '/api/user/urls', {
      auth: admin.token,
      body: { destination: 'https://example.com/p' },
    });
    assert.equal(res.body.code.length, 10);
    assert.equal(res.body.url, `${server().url}/l/${res.body.code}`);
    const go = await server().fetch(`/l/${res.body.code}`);
    assert.equal(go.status, 302);
    assert.equal(go.headers.get('location'), 'https://example.com/p');
  });
});

forEachDatabase('short URL password guessing', (engine) => {
  const server = useTestServer({ engine });
  it('the unlock endpoint allows 10 attempts a minute per address, then 429', async () => {
    const admin = await server().setup();
    const res = await server().json('POST', '/api/user/urls', {
      auth: admin.token,
      body: { destination: 'https://example.com/guarded' },
      headers: { 'x-service-password': 'right' },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (await server().json('POST', `/api/user/urls/${res.body.id}/password`, { body: { password: `guess-${i}` } }))
          .status,
      );
    }
    assert.deepEqual(statuses, [...Array(10).fill(403), 429]);
    const limited = await server().json('POST', `/api/user/urls/${res.body.id}/password`, {
      body: { password: 'right' },
    });
    assert.equal(limited.status, 429);
  });
});
