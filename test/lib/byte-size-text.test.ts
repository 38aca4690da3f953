import assert from 'node:assert/strict';
import { it } from 'node:test';
import { byteSizeText, parseByteSize } from '../../src/lib/text/sizes.js';

it('writes a byte count in the largest unit that divides it, and parseByteSize reads it back', () => {
  const cases: Array<[number, string]> = [
    [1024 ** 3, '1gb'],
    [95 * 1024 ** 2, '95mb'],
    [1536 * 1024, '1536kb'],
    [5 * 1024 ** 4, '5tb'],
    [1000, '1000'],
    [0, '0'],
  ];
  for (const [bytes, text] of cases) {
    assert.equal(byteSizeText(bytes), text);
    assert.equal(parseByteSize(text), bytes);
  }
});
