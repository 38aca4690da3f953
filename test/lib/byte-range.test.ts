import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { contentRange, parseRange, unsatisfiedRange } from '../../src/lib/formats/byte-range.js';
import { ifRangeAllows, isNotModified } from '../../src/lib/formats/conditional.js';

describe('parseRange', () => {
  it('reads single ranges, suffixes and open ends, clamped to the size', () => {
    assert.deepEqual(parseRange('bytes=0-9', 100), { kind: 'partial', start: 0, end: 9 });
    assert.deepEqual(parseRange('bytes=90-', 100), { kind: 'partial', start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=-10', 100), { kind: 'partial', start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=-500', 100), { kind: 'partial', start: 0, end: 99 });
    assert.deepEqual(parseRange('bytes=50-5000', 100), { kind: 'partial', start: 50, end: 99 });
    assert.deepEqual(parseRange('Bytes = 1-2', 100), { kind: 'partial', start: 1, end: 2 });
  });
  it('reports ranges that select nothing as unsatisfiable', () => {
    for (const header of ['bytes=100-', 'bytes=100-200', 'bytes=-0'])
      assert.deepEqual(parseRange(header, 100), { kind: 'unsatisfiable' }, header);
    assert.deepEqual(parseRange('bytes=0-', 0), { kind: 'unsatisfiable' });
  });
  it('ignores what it does not serve: none, other units, several ranges, malformed, reversed', () => {
    for (const header of [
      undefined,
      'items=0-1',
      'bytes=0-1,3-4',
      'bytes=a-b',
      'bytes=5-1',
      'bytes=-',
      'bytes',
      'bytes=1-2-3',
    ]) {
      assert.deepEqual(parseRange(header, 100), { kind: 'full' }, String(header));
    }
  });
  it('always answers a range inside the representation (property)', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.option(fc.nat(2_000_000)), fc.option(fc.nat(2_000_000)), (size, a, b) => {
        const header = `bytes=${a ?? ''}-${b ?? ''}`;
        const range = parseRange(header, size);
        if (range.kind === 'partial') {
          assert.ok(range.start >= 0 && range.start <= range.end && range.end < size, header);
        }
      }),
    );
  });
  it('formats Content-Range', () => {
    assert.equal(contentRange(0, 9, 100), 'bytes 0-9/100');
    assert.equal(unsatisfiedRange(100), 'bytes */100');
  });
});

describe('conditional requests', () => {
  const etag = '"abc-1"';
  const modified = Date.UTC(2026, 0, 1, 12, 0, 0, 500);
  it('If-None-Match compares weakly and wins over If-Modified-Since', () => {
    assert.equal(isNotModified({ 'if-none-match': etag }, etag, modified), true);
    assert.equal(isNotModified({ 'if-none-match': 'W/"abc-1"' }, etag, modified), true);
    assert.equal(isNotModified({ 'if-none-match': '"x", "abc-1"' }, etag, modified), true);
    assert.equal(
      isNotModified(
        { 'if-none-match': '"x"', 'if-modified-since': new Date(modified + 60_000).toUTCString() },
        etag,
        modified,
      ),
      false,
    );
  });
  it('If-Modified-Since compares at one-second precision', () => {
    assert.equal(isNotModified({ 'if-modified-since': new Date(modified).toUTCString() }, etag, modified), true);
    assert.equal(
      isNotModified({ 'if-modified-since': new Date(modified - 1000).toUTCString() }, etag, modified),
      false,
    );
    assert.equal(isNotModified({ 'if-modified-since': 'not a date' }, etag, modified), false);
  });
  it('If-Range needs a strong ETag match or the exact date', () => {
    assert.equal(ifRangeAllows(undefined, etag, modified), true);
    assert.equal(ifRangeAllows(etag, etag, modified), true);
    assert.equal(ifRangeAllows('W/"abc-1"', etag, modified), false);
    assert.equal(ifRangeAllows(new Date(modified).toUTCString(), etag, modified), true);
    assert.equal(ifRangeAllows(new Date(modified + 2000).toUTCString(), etag, modified), false);
  });
});
