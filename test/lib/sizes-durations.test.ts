import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatByteSize, parseByteSize } from '../../src/lib/text/sizes.js';
import { parseDuration } from '../../src/lib/text/durations.js';

describe('parseByteSize', () => {
  it('reads plain numbers and binary units', () => {
    assert.equal(parseByteSize('1048576'), 1048576);
    assert.equal(parseByteSize('10gb'), 10 * 1024 ** 3);
    assert.equal(parseByteSize('512 KiB'), 512 * 1024);
    assert.equal(parseByteSize('1.5m'), 1.5 * 1024 ** 2);
    assert.equal(parseByteSize(42), 42);
  });
  it('refuses what is not a size', () => {
    for (const bad of ['', 'ten', '10 parsecs', '-1', '1e3', '1gb2']) assert.equal(parseByteSize(bad), null, bad);
    assert.equal(parseByteSize(-5), null);
    assert.equal(parseByteSize(1.5), null);
  });
  it('formats sizes for people', () => {
    assert.equal(formatByteSize(512), '512 B');
    assert.equal(formatByteSize(1536), '1.50 KiB');
    assert.equal(formatByteSize(10 * 1024 ** 3), '10.0 GiB');
  });
});

describe('parseDuration', () => {
  it('reads units and combinations', () => {
    assert.equal(parseDuration('30m'), 30 * 60_000);
    assert.equal(parseDuration('7d'), 7 * 86_400_000);
    assert.equal(parseDuration('1 week'), 604_800_000);
    assert.equal(parseDuration('2h30m'), 9_000_000);
    assert.equal(parseDuration('1y'), 31_536_000_000);
  });
  it('refuses what is not a duration', () => {
    for (const bad of ['', 'soon', '10', '0m', '5 fortnights', '3d junk']) assert.equal(parseDuration(bad), null, bad);
  });
});
