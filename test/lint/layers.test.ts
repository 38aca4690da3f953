// The layer rules of eslint.config.js, checked through ESLint itself: a service, a datasource or a lib helper that
// imports a layer above it fails `npm run lint`; the imports the layers are meant to use pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const eslint = new ESLint();

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

const uses = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;

test('a service importing an HTTP adapter, a route or a page fails the lint', async () => {
  for (const from of ['../http/links.js', '../routes/files.js', '../pages/view-page.js']) {
    const errors = await layerErrors('src/services/example.ts', uses(from));
    assert.equal(errors.length, 1, from);
    assert.match(errors[0]!, /A service never imports an HTTP adapter or a route/);
  }
});

test('db/ and storage/ may not import services; lib/ imports no other layer', async () => {
  assert.equal((await layerErrors('src/storage/example.ts', uses('../services/files.js'))).length, 1);
  assert.equal((await layerErrors('src/db/example.ts', uses('../services/files.js'))).length, 1);
  for (const from of ['../services/files.js', '../db/types.js', '../storage/datasource.js', '../context.js']) {
    assert.equal((await layerErrors('src/lib/example.ts', uses(from))).length, 1, from);
  }
});

test('adapters never import routes', async () => {
  assert.equal((await layerErrors('src/http/example.ts', uses('../routes/files.js'))).length, 1);
  assert.equal((await layerErrors('src/pages/example.ts', uses('../routes/files.js'))).length, 1);
});

test('the chute command (src/cli) calls services, never routes or pages; services never import it', async () => {
  assert.equal((await layerErrors('src/cli/example.ts', uses('../routes/files.js'))).length, 1);
  assert.equal((await layerErrors('src/cli/example.ts', uses('../pages/view-page.js'))).length, 1);
  assert.deepEqual(await layerErrors('src/cli/example.ts', uses('../services/users.js')), []);
  assert.equal((await layerErrors('src/services/example.ts', uses('../cli/context.js'))).length, 1);
});

test('the downward imports pass', async () => {
  assert.deepEqual(await layerErrors('src/services/example.ts', uses('../lib/errors.js')), []);
  assert.deepEqual(await layerErrors('src/services/example.ts', uses('../db/types.js')), []);
  assert.deepEqual(await layerErrors('src/routes/example.ts', uses('../http/links.js')), []);
  assert.deepEqual(await layerErrors('src/routes/example.ts', uses('../services/files.js')), []);
  assert.deepEqual(await layerErrors('src/http/example.ts', uses('../services/files.js')), []);
});

test('the dashboard imports the server only as types from src/schemas, or from src/lib', async () => {
  const value = await layerErrors('web/src/pages/example.ts', uses('../../../src/schemas/file.js'));
  assert.equal(value.length, 1);
  assert.match(value[0]!, /as types only/);
  const typeOnly = `import type { X } from '../../../src/schemas/file.js';\nexport type Y = X;\n`;
  assert.deepEqual(await layerErrors('web/src/pages/example.ts', typeOnly), []);
  assert.deepEqual(await layerErrors('web/src/pages/example.ts', uses('../../../src/lib/sizes.js')), []);
  assert.equal((await layerErrors('web/src/pages/example.ts', uses('../../../src/services/files.js'))).length, 1);
});
