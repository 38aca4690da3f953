import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createTestUser, insertTestFile } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';

forEachDatabase('tags', (engine) => {
  const server = useTestServer({ engine });
  let ann: TestUser;
  let bob: TestUser;
  before(async () => {
    ann = await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  it('creates, lists, reads, renames, recolours and deletes a tag', async () => {
    let res = await server().json('POST', '/api/user/tags', {
      auth: ann.token,
      body: { name: ' Work ', color: '#1C7ED6' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Work');
    assert.equal(res.body.color, '#1c7ed6');
    assert.equal(res.body.userId, ann.id);
    assert.equal(res.body.files, 0);
    const id = res.body.id;
    res = await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'archive' } });
    assert.equal(res.body.color, '#868e96');

    res = await server().json('GET', '/api/user/tags', { auth: ann.token });
    assert.deepEqual(
      res.body.map((t: { name: string }) => t.name),
      ['Work', 'archive'],
    );
    res = await server().json('GET', `/api/user/tags/${id}`, { auth: ann.token });
    assert.equal(res.body.name, 'Work');

    res = await server().json('PATCH', `/api/user/tags/${id}`, {
      auth: ann.token,
      body: { name: 'Job', color: '#fff' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Job');
    assert.equal(res.body.color, '#fff');

    res = await server().json('DELETE', `/api/user/tags/${id}`, { auth: ann.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, id);
    res = await server().json('GET', `/api/user/tags/${id}`, { auth: ann.token });
    assert.equal(res.status, 404);
  });

  it('refuses a bad name or colour with 400 / 1000', async () => {
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x', color: 'red' }, { name: 'x', color: '#12345' }]) {
      const res = await server().json('POST', '/api/user/tags', { auth: ann.token, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 1000);
    }
  });

  it('names are unique per user: 1033 on create, 1034 on rename; two users may both have "work"', async () => {
    let res = await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'work' } });
    assert.equal(res.status, 200);
    res = await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'work' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1033);
    res = await server().json('POST', '/api/user/tags', { auth: bob.token, body: { name: 'work' } });
    assert.equal(res.status, 200);

    const other = await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'play' } });
    res = await server().json('PATCH', `/api/user/tags/${other.body.id}`, { auth: ann.token, body: { name: 'work' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1034);
    res = await server().json('GET', `/api/user/tags/${other.body.id}`, { auth: ann.token });
    assert.equal(res.body.name, 'play');
  });

  it("another user's tag is 404 for GET, PATCH and DELETE, and stays as it was", async () => {
    const tag = await server().json('POST', '/api/user/tags', { auth: bob.token, body: { name: 'private' } });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await server().json(method, `/api/user/tags/${tag.body.id}`, { auth: ann.token, body });
      assert.equal(res.status, 404, method);
    }
    const res = await server().json('GET', `/api/user/tags/${tag.body.id}`, { auth: bob.token });
    assert.equal(res.body.name, 'private');
    assert.equal((await server().json('GET', '/api/user/tags')).status, 401);
  });

  it("attaches and detaches tags on files; counts follow; 1032 for a tag that is not the caller's", async () => {
    const red = (await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'red' } })).body;
    const blue = (await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'blue' } })).body;
    const bobs = (await server().json('POST', '/api/user/tags', { auth: bob.token, body: { name: 'red' } })).body;
    const file = await insertTestFile(server(), ann.id);

    let res = await server().json('POST', `/api/user/files/${file.id}/tags/${red.id}`, { auth: ann.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.tags, [{ id: red.id, name: 'red', color: '#868e96' }]);
    // Attaching twice is harmless.
    res = await server().json('POST', `/api/user/files/${file.id}/tags/${red.id}`, { auth: ann.token });
    assert.equal(res.body.tags.length, 1);

    res = await server().json('PUT', `/api/user/files/${file.id}/tags`, {
      auth: ann.token,
      body: { tags: [blue.id, red.id] },
    });
    assert.deepEqual(
      res.body.tags.map((t: { name: string }) => t.name),
      ['blue', 'red'],
    );
    res = await server().json('GET', `/api/user/tags/${red.id}`, { auth: ann.token });
    assert.equal(res.body.files, 1);

    res = await server().json('PUT', `/api/user/files/${file.id}/tags`, {
      auth: ann.token,
      body: { tags: [blue.id, bobs.id] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1032);
    res = await server().json('POST', `/api/user/files/${file.id}/tags/${bobs.id}`, { auth: ann.token });
    assert.equal(res.body.code, 1032);
    res = await server().json('DELETE', `/api/user/files/${file.id}/tags/${bobs.id}`, { auth: ann.token });
    assert.equal(res.body.code, 1032);
    res = await server().json('POST', `/api/user/files/${file.id}/tags/nosuchtag`, { auth: ann.token });
    assert.equal(res.body.code, 1032);
    // A refused change changes nothing.
    res = await server().json('GET', `/api/user/files/${file.id}/tags`, { auth: ann.token });
    assert.deepEqual(
      res.body.tags.map((t: { name: string }) => t.name),
      ['blue', 'red'],
    );

    res = await server().json('DELETE', `/api/user/files/${file.id}/tags/${red.id}`, { auth: ann.token });
    assert.deepEqual(
      res.body.tags.map((t: { name: string }) => t.name),
      ['blue'],
    );
    res = await server().json('PUT', `/api/user/files/${file.id}/tags`, { auth: ann.token, body: { tags: [] } });
    assert.deepEqual(res.body.tags, []);

    // Deleting a tag detaches it from its files.
    await server().json('PUT', `/api/user/files/${file.id}/tags`, { auth: ann.token, body: { tags: [blue.id] } });
    await server().json('DELETE', `/api/user/tags/${blue.id}`, { auth: ann.token });
    res = await server().json('GET', `/api/user/files/${file.id}/tags`, { auth: ann.token });
    assert.deepEqual(res.body.tags, []);
  });

  it("tags on another user's file -> 404 / 4000", async () => {
    const tag = (await server().json('POST', '/api/user/tags', { auth: ann.token, body: { name: 'green' } })).body;
    const bobsFile = await insertTestFile(server(), bob.id);
    for (const [method, path, body] of [
      ['GET', `/api/user/files/${bobsFile.id}/tags`, undefined],
      ['PUT', `/api/user/files/${bobsFile.id}/tags`, { tags: [tag.id] }],
      ['POST', `/api/user/files/${bobsFile.id}/tags/${tag.id}`, undefined],
      ['DELETE', `/api/user/files/${bobsFile.id}/tags/${tag.id}`, undefined],
    ] as const) {
      const res = await server().json(method, path, { auth: ann.token, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.code, 4000);
    }
    const res = await server().json('GET', `/api/user/files/${bobsFile.id}/tags`, { auth: bob.token });
    assert.deepEqual(res.body.tags, []);
  });

  it('the file list filters by tag (files with any of the given tags)', async () => {
    const cat = await createTestUser(server(), 'cat');
    const tag = async (name: string) =>
      (await server().json('POST', '/api/user/tags', { auth: cat.token, body: { name } })).body.id as string;
    const [work, home] = [await tag('work'), await tag('home')];
    const [a, b, c] = [
      await insertTestFile(server(), cat.id),
      await insertTestFile(server(), cat.id),
      await insertTestFile(server(), cat.id),
    ];
    await server().json('PUT', `/api/user/files/${a.id}/tags`, { auth: cat.token, body: { tags: [work] } });
    await server().json('PUT', `/api/user/files/${b.id}/tags`, { auth: cat.token, body: { tags: [work, home] } });
    await server().json('PUT', `/api/user/files/${c.id}/tags`, { auth: cat.token, body: { tags: [home] } });
    const ids = async (query: string) =>
      (await server().json('GET', `/api/user/files?${query}`, { auth: cat.token })).body.page
        .map((f: { id: string }) => f.id)
        .sort();
    assert.deepEqual(await ids(`tags=${work}`), [a.id, b.id].sort());
    assert.deepEqual(await ids(`tags=${home}`), [b.id, c.id].sort());
    assert.deepEqual(await ids(`tags=${work},${home}`), [a.id, b.id, c.id].sort());
    // The total counts each file once (b carries both), and another user's tag in the list adds none of theirs.
    const dog = await createTestUser(server(), 'dog');
    const dogs = (await server().json('POST', '/api/user/tags', { auth: dog.token, body: { name: 'work' } })).body
      .id as string;
    const dogsFile = await insertTestFile(server(), dog.id);
    await server().json('PUT', `/api/user/files/${dogsFile.id}/tags`, { auth: dog.token, body: { tags: [dogs] } });
    for (const query of [`tags=${work},${home}`, `tags=${work},${home},${dogs}`]) {
      const res = await server().json('GET', `/api/user/files?${query}`, { auth: cat.token });
      assert.equal(res.body.total, 3, query);
      assert.equal(res.body.pages, 1, query);
    }
    const onlyDogs = await server().json('GET', `/api/user/files?tags=${dogs},${home}`, { auth: cat.token });
    assert.equal(onlyDogs.body.total, 2);
    const listed = await server().json('GET', `/api/user/files?tags=${work}`, { auth: cat.token });
    const fileB = listed.body.page.find((f: { id: string }) => f.id === b.id);
    assert.deepEqual(
      fileB.tags.map((t: { name: string }) => t.name),
      ['home', 'work'],
    );
  });
});
