// The error model: every code's status, the body shape, and Fastify's own failures translated into it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { ERROR_CODES, ERROR_MESSAGES, statusOfCode } from '../../src/lib/error-codes.js';
import { ApiError } from '../../src/lib/errors.js';
import { registerErrorHandlers } from '../../src/http/errors.js';
import type { ApiErrorBody } from '../support/api-errors.js';
import { forEachDatabase, useTestServer } from '../support/server.js';

describe('error codes', () => {
  it('take their status from the range, and the generic codes from their own table', () => {
    const expected: Array<[number, number]> = [
      [1000, 400],
      [1069, 400],
      [2000, 401],
      [2004, 401],
      [3000, 403],
      [3019, 403],
      [4000, 404],
      [4011, 404],
      [5000, 413],
      [5002, 413],
      [6000, 500],
      [6010, 500],
      [9000, 400],
      [9001, 403],
      [9002, 404],
      [9004, 500],
    ];
    for (const [code, status] of expected) assert.equal(statusOfCode(code as never), status, String(code));
  });

  it('format the message as E<code>: meaning[: context]', () => {
    const err = new ApiError(1044);
    assert.equal(err.message, 'E1044: invalid username or password');
    assert.deepEqual(new ApiError(4000, 'abc').toBody(), {
      error: 'E4000: file not found: abc',
      code: 4000,
      statusCode: 404,
    });
  });

  it('let only the generic codes vary their status', () => {
    assert.equal(new ApiError(9000, 'slow down', { status: 429 }).statusCode, 429);
    assert.equal(new ApiError(1000, 'x', { status: 429 }).statusCode, 400);
  });

  it('hold exactly the codes of the specification', async () => {
    const { readFile } = await import('node:fs/promises');
    const spec = await readFile(new URL('../../docs/api-spec.md', import.meta.url), 'utf8');
    const errorsSection = spec.slice(spec.indexOf('### 400 codes'), spec.indexOf('## Limits'));
    const specCodes = [...errorsSection.matchAll(/^\| (\d{4}) \|/gm)].map((m) => Number(m[1]));
    assert.deepEqual([...ERROR_CODES].sort(), [...new Set(specCodes)].sort());
    assert.equal(ERROR_MESSAGES[1021], 'cannot delete current session (log out instead)');
  });
});

describe('unexpected errors', () => {
  it('become 500 / 9004 without leaking the cause', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandlers(app);
    app.get('/boom', async () => {
      throw new Error('secret internals');
    });
    const res = await app.inject({ method: 'GET', url: '/boom' });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'E9004: internal server error', code: 9004, statusCode: 500 });
    await app.close();
  });
});

forEachDatabase('errors over HTTP', (engine) => {
  const server = useTestServer({ engine, env: { JSON_BODY_LIMIT: '1kb' } });

  const assertShape = (body: ApiErrorBody, code: number, status: number) => {
    assert.equal(body.code, code);
    assert.equal(body.statusCode, status);
    assert.match(body.error, new RegExp(`^E${code}: `));
  };

  it('unknown routes -> 404 / 9002', async () => {
    const res = await server().json('GET', '/api/does-not-exist');
    assert.equal(res.status, 404);
    assertShape(res.body, 9002, 404);
  });

  it('malformed JSON -> 400 / 9000', async () => {
    const res = await server().fetch('/api/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"username":',
    });
    assert.equal(res.status, 400);
    assertShape((await res.json()) as ApiErrorBody, 9000, 400);
  });

  it('an unsupported content type -> 415 / 9000', async () => {
    const res = await server().fetch('/api/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<x/>',
    });
    assert.equal(res.status, 415);
    assertShape((await res.json()) as ApiErrorBody, 9000, 415);
  });

  it('a body over the limit -> 413 / 9000', async () => {
    const res = await server().json('POST', '/api/setup', { body: { username: 'a'.repeat(2000), password: 'b' } });
    assert.equal(res.status, 413);
    assertShape(res.body, 9000, 413);
  });

  it('schema failures -> 400 / 1000 listing every failing field', async () => {
    const res = await server().json('POST', '/api/setup', { body: { username: '', password: 42 } });
    assert.equal(res.status, 400);
    assertShape(res.body, 1000, 400);
    const paths = res.body.issues.map((i: { path: string }) => i.path).sort();
    assert.deepEqual(paths, ['body.password', 'body.username']);
    assert.match(res.body.error, /body\.username/);
  });
});
