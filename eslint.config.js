// Lint for the server (src), the dashboard (web/src), the tests and the benchmarks. The import rules below hold the
// layers of docs/development.md in place: routes -> services -> (db, storage, lib); http/ and pages/ are adapters
// that only routes (and the app) use; src/cli (the chute command) is an adapter beside the routes; lib/ is pure and
// imports no other layer.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const adapters = ['**/http/**', '**/routes/**', '**/pages/**', '**/cli/**'];
const layerRule = (groups, message) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Tests and benchmarks read JSON answers whose shape is what they assert.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/services/**/*.ts'],
    rules: layerRule(adapters, 'A service never imports an HTTP adapter or a route: return data, throw ApiError.'),
  },
  {
    files: ['src/db/**/*.ts', 'src/storage/**/*.ts'],
    rules: layerRule(
      [...adapters, '**/services/**'],
      'db/ and storage/ sit below the services: they import only each other and lib/.',
    ),
  },
  {
    files: ['src/lib/**/*.ts'],
    rules: layerRule(
      [...adapters, '**/services/**', '**/db/**', '**/storage/**', '**/context.js', '**/config.js'],
      'lib/ holds pure helpers: it imports nothing from the other layers.',
    ),
  },
  {
    // The chute command is an adapter beside the routes: it calls services (and reads upload options as an upload
    // request's headers would give them), never a route.
    files: ['src/cli/**/*.ts'],
    rules: layerRule(['**/routes/**', '**/pages/**'], 'The chute command calls services, never routes or pages.'),
  },
  {
    files: ['src/pages/**/*.ts', 'src/http/**/*.ts'],
    rules: layerRule(['**/routes/**'], 'Adapters are used by routes, never the other way round.'),
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/(?!schemas/|lib/)',
              message: 'The dashboard imports only the server’s schemas (as types) and its pure lib/.',
            },
            {
              regex: '^(\\.\\./)+src/schemas/',
              allowTypeImports: true,
              message: 'Import the server’s schemas as types only (import type …).',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
