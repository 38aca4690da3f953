// Which new files' names are checked against the other files' extensionless names before their insert
// (services/files/link-names.ts): every one whose name could meet one, and not the random names of the default format.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { namesNeedCrossCheck } from '../../src/services/files/link-names.js';

it('checks names handed an extensionless link, names known in advance and names without an extension', () => {
  const random = { fileName: null, format: 'random' as const };
  assert.equal(namesNeedCrossCheck(random, 'Xy7kP2.png', 'Xy7kP2'), true, 'extensionless link');
  assert.equal(namesNeedCrossCheck({ ...random, fileName: 'abc' }, 'abc.png', null), true, 'explicit name');
  assert.equal(namesNeedCrossCheck({ ...random, format: 'date' }, '2026-12-03_13-40-00.png', null), true, 'date');
  assert.equal(namesNeedCrossCheck({ ...random, format: 'name' }, 'holiday.png', null), true, 'original name');
  assert.equal(namesNeedCrossCheck(random, 'Xy7kP2', null), true, 'no extension: a random short name could be it');
});

it('skips the random, uuid and random-words names that carry their extension', () => {
  for (const format of ['random', 'uuid', 'random-words'] as const) {
    assert.equal(namesNeedCrossCheck({ fileName: null, format }, 'Xy7kP2.png', null), false, format);
  }
});
