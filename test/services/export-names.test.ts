// The name of a user's export archive: whose and which day, safe as a file name on any system.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportFileName } from '../../src/services/exports/dto.js';

test('export archives are named chute-export-<username>-<date>.zip, with only safe characters', () => {
  const day = Date.parse('2026-12-02T23:59:00Z');
  assert.equal(exportFileName('alice', day), 'chute-export-alice-2026-12-02.zip');
  assert.equal(exportFileName('Zoë_1.x', day), 'chute-export-Zoë_1.x-2026-12-02.zip');
  assert.equal(exportFileName('../a b/c:d*?"<>|', day), 'chute-export-a-b-c-d-2026-12-02.zip');
  assert.equal(exportFileName('...', day), 'chute-export-user-2026-12-02.zip');
  assert.equal(exportFileName('x'.repeat(200), day), `chute-export-${'x'.repeat(64)}-2026-12-02.zip`);
});
