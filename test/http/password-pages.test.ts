// Every page that asks for a password (a file's /view/<name> and /u/<name>, a share link /s/<id>, a short URL's
// /go/<slug> and Zipline's /view/url/<id>) answers its form with 200, as Zipline's pages do: a 401 must carry a
// WWW-Authenticate challenge (RFC 9110), which a form is not. A wrong or empty password shows the form again, 200
// too. The form is never stored by a cache (it is not the content), and without the password the bytes and the
// destination stay out of reach, while the JSON API keeps its 401/403 codes.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assertError } from '../support/api-errors.js';
import { NO_RATE_LIMIT } from '../support/factory.js';
import { forEachDatabase, readJsonResponse, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const SECRET_TEXT = 'the protected bytes';
const DESTINATION = 'https://example.com/the-protected-destination';

function formPost(password: string): RequestInit {
  return {
    method: 'POST',
    headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password }),
  };
}

interface PasswordPage {
  /** The page's address. */
  path: string;
  /** What must not show without the password: the file's text or the link's destination. */
  secret: string;
  /** Whether HEAD answers as the page; /u and /s answer a HEAD as the bytes (link checkers), 403 while locked. */
  headIsPage?: boolean;
}

forEachDatabase('password pages', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let owner: TestUser;
  let fileName: string;
  let fileId: string;
  let shareId: string;
  let urlId: string;
  let urlCode: string;
  let pages: PasswordPage[];

  before(async () => {
    owner = await server().setup();
    const file = await uploadOne(server(), owner.token, SECRET_TEXT, {
      name: 'locked.txt',
      type: 'text/plain',
      headers: { 'x-service-password': 'file-pw' },
    });
    fileName = file.name;
    fileId = file.id;
    const share = await server().json('POST', `/api/user/files/${file.id}/shares`, {
      auth: owner.token,
      body: { password: 'share-pw' },
    });
    assert.equal(share.status, 200, JSON.stringify(share.body));
    shareId = share.body.id;
    const url = await server().json('POST', '/api/user/urls', {
      auth: owner.token,
      headers: { 'x-service-password': 'url-pw' },
      body: { destination: DESTINATION },
    });
    assert.equal(url.status, 200, JSON.stringify(url.body));
    urlId = url.body.id;
    urlCode = url.body.code;
    pages = [
      { path: `/view/${fileName}`, secret: SECRET_TEXT, headIsPage: true },
      { path: `/u/${fileName}`, secret: SECRET_TEXT },
      { path: `/s/${shareId}`, secret: SECRET_TEXT },
      { path: `/go/${urlCode}`, secret: DESTINATION, headIsPage: true },
      { path: `/view/url/${urlId}`, secret: DESTINATION, headIsPage: true },
    ];
  });

  /** A password form answered 200, not stored by any cache, without a challenge, the secret or a way on. */
  async function assertForm(res: Response, page: PasswordPage, what: string, message?: string): Promise<void> {
    const label = `${what} ${page.path}`;
    assert.equal(res.status, 200, label);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, label);
    assert.equal(res.headers.get('cache-control'), 'private, no-store', label);
    assert.equal(res.headers.get('www-authenticate'), null, label);
    assert.equal(res.headers.get('location'), null, label);
    const html = await res.text();
    assert.ok(html.includes('<form class="unlock" method="post">'), label);
    assert.ok(!html.includes(page.secret), `${label} shows what the password guards`);
    if (message !== undefined) assert.ok(html.includes(message), `${label}: ${message}`);
  }

  it('the form of every password page answers 200 (GET and HEAD), never cached', async () => {
    for (const page of pages) {
      await assertForm(await server().fetch(page.path, { headers: BROWSER }), page, 'GET');
      const head = await server().fetch(page.path, { method: 'HEAD', headers: BROWSER });
      assert.equal(head.status, page.headIsPage === true ? 200 : 403, `HEAD ${page.path}`);
      assert.equal(head.headers.get('cache-control'), 'private, no-store', `HEAD ${page.path}`);
      assert.equal(head.headers.get('location'), null, `HEAD ${page.path}`);
    }
  });

  it('a wrong or an empty password shows the form again, 200, saying so', async () => {
    for (const page of pages) {
      await assertForm(
        await server().fetch(page.path, formPost('wrong')),
        page,
        'wrong',
        'Wrong password. Check it and try again.',
      );
      await assertForm(await server().fetch(page.path, formPost('')), page, 'empty', 'Enter the password.');
    }
  });

  it('a short URL answers the form, never its destination, to any client and with a forged token', async () => {
    for (const path of [`/go/${urlCode}`, `/view/url/${urlId}`]) {
      const page = { path, secret: DESTINATION };
      await assertForm(await server().fetch(path), page, 'no Accept');
      await assertForm(await server().fetch(`${path}?token=forged.AAAA`, { headers: BROWSER }), page, 'forged');
    }
  });

  it('without the password the bytes stay unreachable: the API and byte routes keep their 401/403', async () => {
    assertError(await server().json('GET', `/raw/${fileName}`), 403, 3004);
    assertError(await server().json('GET', `/u/${fileName}`), 403, 3004);
    assertError(await server().json('GET', `/raw/${fileName}?token=forged.AAAA`), 403, 3018);
    assertError(await server().json('GET', `/s/${shareId}`), 403, 3004);
    assertError(await server().json('GET', `/s/${shareId}/raw`), 403, 3004);
    // A client that asks for JSON posting to a form gets the JSON error.
    const jsonPost = await server().fetch(`/view/${fileName}`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=wrong',
    });
    assertError(await readJsonResponse(jsonPost), 403, 3005);
    const fileUnlock = await server().json('POST', `/api/user/files/${fileId}/password`, {
      body: { password: 'wrong' },
    });
    assertError(fileUnlock, 403, 3005);
    const urlUnlock = await server().json('POST', `/api/user/urls/${urlId}/password`, { body: { password: 'wrong' } });
    assertError(urlUnlock, 403, 3005);
    assertError(await server().json('GET', `/api/user/files/${fileId}`), 401, 2002);
  });

  it('the right password opens each page (so the forms above were the locks, not a broken page)', async () => {
    const unlocks: Array<[string, string]> = [
      [`/view/${fileName}`, 'file-pw'],
      [`/u/${fileName}`, 'file-pw'],
      [`/s/${shareId}`, 'share-pw'],
      [`/go/${urlCode}`, 'url-pw'],
      [`/view/url/${urlId}`, 'url-pw'],
    ];
    for (const [path, password] of unlocks) {
      const right = await server().fetch(path, formPost(password));
      assert.equal(right.status, 303, path);
      const location = right.headers.get('location') ?? '';
      assert.match(location, /\?token=/, path);
      const opened = await server().fetch(location, { headers: BROWSER });
      if (path.includes('/go/') || path.includes('/view/url/')) {
        assert.equal(opened.status, 302, path);
        assert.equal(opened.headers.get('location'), DESTINATION, path);
      } else {
        assert.equal(opened.status, 200, path);
        assert.ok((await opened.text()).includes(SECRET_TEXT), path);
      }
    }
  });
});
