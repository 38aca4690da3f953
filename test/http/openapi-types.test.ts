// web/src/api/openapi.d.ts, the dashboard's types of the API, is generated from GET /api/openapi.json
// (scripts/openapi-types.ts): this fails when the committed file is out of date, e.g. after a schema changed.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { OPENAPI_TYPES_FILE, renderOpenApiTypes } from '../../scripts/openapi-types.js';

test('web/src/api/openapi.d.ts is what npm run api:types generates', async () => {
  const committed = await readFile(OPENAPI_TYPES_FILE, 'utf8');
  assert.ok(
    committed === (await renderOpenApiTypes()),
    'web/src/api/openapi.d.ts is out of date: run `npm run api:types` and commit the result',
  );
});
