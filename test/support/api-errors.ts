// The error body of the specification, checked in one place: `{ error: "E<code>: ...", code, statusCode }`.
import assert from 'node:assert/strict';
import type { JsonResponse } from './server.js';

/** The spec's error body (src/schemas/error.ts), as a test reads it. */
export interface ApiErrorBody {
  error: string;
  code: number;
  statusCode: number;
}

/** Asserts the spec's error body with this status and code. */
export function assertError(res: JsonResponse, status: number, code: number, message?: string): void {
  assert.equal(
    res.status,
    status,
    `${message ?? ''} expected ${status}/${code}, got ${res.status} ${JSON.stringify(res.body)}`,
  );
  assert.equal(res.body.code, code, message);
  assert.equal(res.body.statusCode, status, message);
  assert.match(res.body.error, new RegExp(`^E${code}: `), message);
}
