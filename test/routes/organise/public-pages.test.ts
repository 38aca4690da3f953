// The server-rendered public pages over HTTP: the password forms of files and short URLs work without script (a form
// post answered by a redirect with a token, or by the form again saying what went wrong), the view page follows the
// owner's view settings, the folder page links and thumbnails, the upload form, browsers get errors as pages, and
// every page runs no script and allows only its own stylesheet.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { makeFolder, makeTag } from '../../support/factory.js';
import { PNG_1X1 } from '../../support/fixtures.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

function formPost(password: string | undefined): RequestInit {
  const body = new URLSearchParams(password === undefined ? {} : { password });
  return { method: 'POST', headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' }, body };
}

/** The page runs nothing and its one stylesheet is the one its policy allows (so that it applies at all). */
function assertSafePage(res: Response, html: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /script-src|unsafe-inline/);
  assert.doesNotMatch(html, /<script/i);
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)];
  assert.equal(styles.length, 1);
  const hash = createHash('sha256').update(styles[0]![1]!).digest('base64');
  assert.ok(csp.includes(`style-src 'sha256-${hash}'`), csp);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
}

forEachDatabase('public pages', (engine) => {
  const server = useTestServer({ engine, env: { SITE_TITLE: 'Drop & <Co>' } });
  let owner: TestUser;
  before(async () => {
    owner = await server().setup();
  });

  it('a protected file: the form posts back to its page; wrong -> the form saying so, right -> 303 with a token', async () => {
    const file = await uploadOne(server(), owner.token, 'classified', {
      name: 'c.txt',
      type: 'text/plain',
      headers: { 'x-service-password': 'pw1' },
    });
    const locked = await server().fetch(`/view/${file.name}`, { headers: BROWSER });
    assert.equal(locked.status, 200);
    const lockedHtml = await locked.text();
    assertSafePage(locked, lockedHtml);
    assert.ok(lockedHtml.includes('<form class="unlock" method="post">'));
    assert.ok(lockedHtml.includes('Drop &amp; &lt;Co&gt;'));
    assert.ok(!lockedHtml.includes('Wrong password'));

    const wrong = await server().fetch(`/view/${file.name}`, formPost('nope'));
    assert.equal(wrong.status, 200);
    const wrongHtml = await wrong.text();
    assertSafePage(wrong, wrongHtml);
    assert.ok(wrongHtml.includes('Wrong password. Check it and try again.'));
    assert.ok(!wrongHtml.includes('classified'));

    const empty = await server().fetch(`/view/${file.name}`, formPost(''));
    assert.equal(empty.status, 200);
    assert.ok((await empty.text()).includes('Enter the password.'));

    const right = await server().fetch(`/view/${file.name}`, formPost('pw1'));
    assert.equal(right.status, 303);
    const location = right.headers.get('location') ?? '';
    assert.match(location, new RegExp(`^/view/${file.name}\\?token=[^&]+$`));
    const opened = await server().fetch(location, { headers: BROWSER });
    assert.equal(opened.status, 200);
    assert.ok((await opened.text()).includes('<pre>classified</pre>'));

    // The share link's form comes back to the share link, which (view page off) then gives the bytes.
    const viaShare = await server().fetch(`/u/${file.name}`, formPost('pw1'));
    assert.equal(viaShare.status, 303);
    const shareLocation = viaShare.headers.get('location') ?? '';
    assert.match(shareLocation, new RegExp(`^/u/${file.name}\\?token=`));
    assert.equal(await (await server().fetch(shareLocation)).text(), 'classified');
  });

  it('the forms accept form posts only on their own routes: the JSON API still refuses them', async () => {
    const res = await server().fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: 'admin-password' }),
    });
    assert.equal(res.status, 415);
  });

  it('a protected short URL: wrong -> the form saying so; right -> 303 to the link with a token -> the destination', async () => {
    const created = await server().json('POST', '/api/user/urls', {
      auth: owner.token,
      headers: { 'x-service-password': 'letmein' },
      body: { destination: 'https://example.com/hidden-target', vanity: 'secret-link' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const page = await server().fetch('/go/secret-link', { headers: BROWSER });
    assert.equal(page.status, 200);
    const pageHtml = await page.text();
    assertSafePage(page, pageHtml);
    assert.ok(pageHtml.includes('This link is password protected'));
    assert.ok(!pageHtml.includes('hidden-target'));

    const wrong = await server().fetch('/go/secret-link', formPost('guess'));
    assert.equal(wrong.status, 200);
    const wrongHtml = await wrong.text();
    assert.ok(wrongHtml.includes('Wrong password. Check it and try again.'));
    assert.ok(!wrongHtml.includes('hidden-target'));

    const right = await server().fetch('/go/secret-link', formPost('letmein'));
    assert.equal(right.status, 303);
    const location = right.headers.get('location') ?? '';
    assert.match(location, /^\/go\/secret-link\?token=[^&]+$/);
    const followed = await server().fetch(location);
    assert.equal(followed.status, 302);
    assert.equal(followed.headers.get('location'), 'https://example.com/hidden-target');

    // An open link's form post just goes back to the link; a missing one is a page for browsers, JSON for others.
    await server().json('POST', '/api/user/urls', {
      auth: owner.token,
      body: { destination: 'https://example.com/open', vanity: 'open-link' },
    });
    const open = await server().fetch('/go/open-link', formPost('whatever'));
    assert.equal(open.status, 303);
    assert.equal(open.headers.get('location'), '/go/open-link');
    const missing = await server().fetch('/go/no-such-link', { headers: BROWSER });
    assert.equal(missing.status, 404);
    assert.ok((await missing.text()).includes('Link not found'));
    assert.equal((await server().json('GET', '/go/no-such-link')).body.code, 9002);
  });

  it('browsers get missing files and closed folders as pages in words; API clients keep the JSON errors', async () => {
    const missing = await server().fetch('/view/not-there.png', { headers: BROWSER });
    assert.equal(missing.status, 404);
    const html = await missing.text();
    assertSafePage(missing, html);
    assert.ok(html.includes('File not found'));
    const json = await server().json('GET', '/view/not-there.png');
    assert.equal(json.body.code, 4000);

    const closed = await server().json('POST', '/api/user/folders', {
      auth: owner.token,
      body: { name: 'Private stuff' },
    });
    const folderPage = await server().fetch(`/folder/${closed.body.id}`, { headers: BROWSER });
    assert.equal(folderPage.status, 403);
    const folderHtml = await folderPage.text();
    assert.ok(folderHtml.includes('This folder is not shared'));
    assert.ok(!folderHtml.includes('Private stuff'));
  });

  it("the view page follows the owner's view settings: type, tags, folder, text, alignment, text files off", async () => {
    const folder = await makeFolder(server(), owner, { name: 'Album <1>', public: true });
    const image = await uploadOne(server(), owner.token, Buffer.from(PNG_1X1, 'base64'), {
      name: 'dot.png',
      type: 'image/png',
      headers: { 'x-service-folder': folder.id },
    });
    const tag = await makeTag(server(), owner, { name: 'best <of>', color: '#12ab34' });
    await server().json('PUT', `/api/user/files/${image.id}/tags`, {
      auth: owner.token,
      body: { tags: [tag.id] },
    });
    const page = async (name: string) => {
      const res = await server().fetch(`/view/${name}`, { headers: BROWSER });
      assert.equal(res.status, 200);
      const html = await res.text();
      assertSafePage(res, html);
      return html;
    };

    await server().json('PATCH', '/api/user', {
      auth: owner.token,
      body: { view: { showMimetype: false, showTags: false, showFolder: false, align: null, content: null } },
    });
    let html = await page(image.name);
    assert.ok(html.includes('class="card stack align-center"'));
    assert.ok(!html.includes('image/png</li>'));
    assert.ok(!html.includes('best &lt;of&gt;'));
    assert.ok(!html.includes('Album'));
    assert.ok(html.includes(`href="/raw/${image.name}?download"`));

    await server().json('PATCH', '/api/user', {
      auth: owner.token,
      body: {
        view: { showMimetype: true, showTags: true, showFolder: true, align: 'left', content: 'Size: {file.size} <i>' },
      },
    });
    html = await page(image.name);
    assert.ok(html.includes('class="card stack align-left"'));
    assert.ok(html.includes('<li>image/png</li>'));
    assert.ok(html.includes('best &lt;of&gt;'));
    assert.ok(html.includes('fill="#12ab34"'));
    assert.ok(html.includes(`<a href="/folder/${folder.id}">Album &lt;1&gt;</a>`));
    assert.ok(html.includes('<p class="content-text">Size: 70 B &lt;i&gt;</p>'));
    // The embed card (what a chat app draws) says the same: folder and tags on their own line of the description.
    await server().json('PATCH', '/api/user', {
      auth: owner.token,
      body: { view: { embed: true, embedDescription: 'A {file.type}' } },
    });
    html = await page(image.name);
    assert.ok(
      html.includes(
        '<meta property="og:description" content="A image/png\nFolder: Album &lt;1&gt; · Tags: best &lt;of&gt;">',
      ),
      html,
    );
    await server().json('PATCH', '/api/user', {
      auth: owner.token,
      body: { view: { embedDescription: null, showFolder: false } },
    });
    html = await page(image.name);
    assert.ok(html.includes('<meta property="og:description" content="Tags: best &lt;of&gt;">'), html);
    await server().json('PATCH', '/api/user', {
      auth: owner.token,
      body: { view: { embed: false, showFolder: true } },
    });

    const text = await uploadOne(server(), owner.token, 'just words', { name: 'w.txt', type: 'text/plain' });
    assert.ok((await page(text.name)).includes('<pre>just words</pre>'));
    await server().json('PATCH', '/api/user', { auth: owner.token, body: { view: { disableTextFiles: true } } });
    html = await page(text.name);
    assert.ok(!html.includes('just words'));
    assert.ok(html.includes('No preview of this file here.'));
    await server().json('PATCH', '/api/user', { auth: owner.token, body: { view: { disableTextFiles: false } } });
  });

  it('the folder page: tiles link to view pages; thumbnails only for images that cost no view and need no password', async () => {
    const folder = await server().json('POST', '/api/user/folders', {
      auth: owner.token,
      body: { name: 'Shared', public: true },
    });
    const inFolder = { 'x-service-folder': folder.body.id };
    const png = Buffer.from(PNG_1X1, 'base64');
    const open = await uploadOne(server(), owner.token, png, {
      name: 'open.png',
      type: 'image/png',
      headers: inFolder,
    });
    const limited = await uploadOne(server(), owner.token, png, {
      name: 'limited.png',
      type: 'image/png',
      headers: { ...inFolder, 'x-service-max-views': '1' },
    });
    const locked = await uploadOne(server(), owner.token, png, {
      name: 'locked.png',
      type: 'image/png',
      headers: { ...inFolder, 'x-service-password': 'pw' },
    });
    const doc = await uploadOne(server(), owner.token, 'zip', {
      name: 'a.zip',
      type: 'application/zip',
      headers: inFolder,
    });

    const res = await server().fetch(`/folder/${folder.body.id}`, { headers: BROWSER });
    assert.equal(res.status, 200);
    const html = await res.text();
    assertSafePage(res, html);
    for (const file of [open, limited, locked, doc])
      assert.ok(html.includes(`<a href="/view/${file.name}">`), file.name);
    assert.ok(html.includes(`<img src="/raw/${open.name}"`));
    assert.ok(!html.includes(`src="/raw/${limited.name}"`), 'loading it would spend its only view');
    assert.ok(!html.includes(`src="/raw/${locked.name}"`));
    assert.ok(html.includes(`href="/api/folders/${folder.body.id}/zip"`));
    // The limited file's view is still there.
    assert.equal((await server().fetch(`/raw/${limited.name}`)).status, 200);
  });

  it('the upload form of a folder page: files stored, 303 back to the page with a notice; refusals as pages in words', async () => {
    const folder = await server().json('POST', '/api/user/folders', {
      auth: owner.token,
      body: { name: 'Inbox', public: true, allowUploads: true },
    });
    const form = new FormData();
    form.append('file', new Blob(['one'], { type: 'text/plain' }), 'one.txt');
    form.append('file', new Blob(['two'], { type: 'text/plain' }), 'two.txt');
    const res = await server().fetch(`/folder/${folder.body.id}`, { method: 'POST', headers: BROWSER, body: form });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `/folder/${folder.body.id}?uploaded=2`);
    const page = await (await server().fetch(`/folder/${folder.body.id}?uploaded=2`, { headers: BROWSER })).text();
    assert.ok(page.includes('2 files uploaded.'));
    assert.ok(page.includes('one.txt') && page.includes('two.txt'));
    const detail = await server().json('GET', `/api/user/folders/${folder.body.id}`, { auth: owner.token });
    assert.equal(detail.body.fileCount, 2);

    const closed = await server().json('POST', '/api/user/folders', {
      auth: owner.token,
      body: { name: 'Closed', public: true },
    });
    const again = new FormData();
    again.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    const refused = await server().fetch(`/folder/${closed.body.id}`, {
      method: 'POST',
      headers: BROWSER,
      body: again,
    });
    assert.equal(refused.status, 403);
    const refusedHtml = await refused.text();
    assert.ok(refusedHtml.includes('The upload did not work'));
    assert.ok(refusedHtml.includes('This folder does not accept uploads.'));
    assert.ok(refusedHtml.includes(`href="/folder/${closed.body.id}"`));
    assert.equal(
      (await server().json('GET', `/api/user/folders/${closed.body.id}`, { auth: owner.token })).body.fileCount,
      0,
    );
  });
});

forEachDatabase('public pages: password guessing', (engine) => {
  const server = useTestServer({ engine });

  it('the file password form allows 10 attempts a minute per address, then says to wait', async () => {
    const owner = await server().setup();
    const file = await uploadOne(server(), owner.token, 'x', { headers: { 'x-service-password': 'right' } });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await server().fetch(`/view/${file.name}`, formPost(`guess-${i}`))).status);
    assert.deepEqual(statuses, Array(10).fill(200));
    const limited = await server().fetch(`/view/${file.name}`, formPost('right'));
    assert.equal(limited.status, 429);
    assert.ok((await limited.text()).includes('Too many attempts. Wait a minute, then try again.'));
    // The other address of the same form counts together with it.
    assert.equal((await server().fetch(`/u/${file.name}`, formPost('right'))).status, 429);
  });
});
