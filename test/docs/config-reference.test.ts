// docs/configuration.md is generated from src/config.ts and src/services/operations/settings.ts (scripts/config-docs.ts): this
// fails when the committed file is out of date, e.g. after a new variable or setting.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { z } from 'zod';
import { ENV_VARIABLES } from '../../src/config.js';
import { SETTING_DEFINITIONS } from '../../src/services/operations/settings.js';
import { CONFIGURATION_REFERENCE, environmentTable, renderConfigurationReference } from '../../scripts/config-docs.js';

test('docs/configuration.md is what npm run docs:config generates', async () => {
  const committed = await readFile(CONFIGURATION_REFERENCE, 'utf8');
  assert.ok(
    committed === renderConfigurationReference(),
    'docs/configuration.md is out of date: run `npm run docs:config` and commit the result',
  );
});

test('the reference names every environment variable and every server setting with its variable', () => {
  const text = renderConfigurationReference();
  for (const name of Object.keys(ENV_VARIABLES)) assert.match(text, new RegExp(`\\| \`${name}\` \\|`), name);
  for (const [key, def] of Object.entries(SETTING_DEFINITIONS)) {
    assert.match(text, new RegExp(`\\| \`${key}\` \\| \`${def.env}\` \\|`), key);
  }
});

test('an environment variable without a description stops the generator', () => {
  assert.throws(() => environmentTable({ UNDESCRIBED: z.string().optional() }), /UNDESCRIBED has no description/);
});
