import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ByteCache } from '../../src/lib/bytes/byte-cache.js';

const bytes = (n: number, fill = 1) => Buffer.alloc(n, fill);

it('keeps values up to maxEntryBytes and counts what it holds', () => {
  const cache = new ByteCache(10, 100);
  cache.set('a', bytes(10));
  cache.set('big', bytes(11));
  assert.equal(cache.get('a')?.length, 10);
  assert.equal(cache.get('big'), undefined);
  assert.equal(cache.size, 10);
  cache.set('a', bytes(4));
  assert.equal(cache.size, 4, 'a replaced value is counted once');
  cache.delete('a');
  assert.equal(cache.size, 0);
  assert.equal(cache.get('a'), undefined);
});

it('makes room by dropping the least recently used values', () => {
  const cache = new ByteCache(10, 30);
  cache.set('a', bytes(10));
  cache.set('b', bytes(10));
  cache.set('c', bytes(10));
  cache.get('a'); // a is now the most recently used
  cache.set('d', bytes(10));
  assert.equal(cache.get('b'), undefined, 'b was the least recently used');
  assert.ok(cache.get('a') && cache.get('c') && cache.get('d'));
  assert.equal(cache.size, 30);
});
