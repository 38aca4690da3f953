// Property: whatever string a caller passes as a key, either it is refused or it names a path strictly inside the
// storage folder (and the same object key under an S3 prefix), so no key can reach outside.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InvalidStorageKeyError } from '../../src/storage/datasource.js';
import { assertValidKey } from '../../src/storage/keys.js';

const root = path.resolve('/srv/chute/uploads');

function accepted(key: string): boolean {
  try {
    assertValidKey(key);
    return true;
  } catch (err) {
    assert.ok(err instanceof InvalidStorageKeyError);
    return false;
  }
}

// Keys built from the characters that matter for paths, so that the tricky cases come up often.
// eslint-disable-next-line no-control-regex -- NUL is one of the characters a key must refuse
const pathish = fc.stringMatching(/^[a-z./\\\u0000\n ]{0,12}$/);

describe('storage keys', () => {
  it('an accepted key always resolves strictly inside the root, unchanged by normalisation', () => {
    fc.assert(
      fc.property(
        fc.oneof(pathish, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 })),
        (key) => {
          if (!accepted(key)) return;
          const resolved = path.resolve(root, key);
          assert.ok(resolved.startsWith(`${root}${path.sep}`), `${JSON.stringify(key)} -> ${resolved}`);
          assert.equal(path.posix.normalize(key), key, 'S3 servers see the same object name as the folder');
          assert.equal(path.relative(root, resolved).split(path.sep).join('/'), key);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('accepts ordinary names and nested names', () => {
    for (const key of ['a', 'abc.png', 'u/abc.png', '2026/11/x y.tar.gz', '.hidden', 'a..b', '…'])
      assert.ok(accepted(key), key);
  });
});
