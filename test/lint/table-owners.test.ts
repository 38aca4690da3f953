// Every table has one module that writes it (its owner, named below); every other module calls that module. A write
// anywhere else in src/ fails here: a Kysely insertInto/updateTable/deleteFrom/replaceInto/mergeInto, or SQL text
// (insert into, update ... set, delete from) in a string or template literal. Migrations change the schema over time
// and may write anything, so src/db/schema/migrations/ is not read.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { FILE_SEARCH, NEW_FILES, URL_SEARCH, USER_SEARCH } from '../../src/db/schema/search-index.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SRC = path.join(ROOT, 'src');
const MIGRATIONS = path.join(SRC, 'db', 'schema', 'migrations');

const SEARCH_INDEXES = [FILE_SEARCH, URL_SEARCH, USER_SEARCH];
const SEARCH_INDEX_MODULE = 'src/db/schema/search-index.ts';

/** Table -> the one module of src/ that writes it. */
const OWNERS: Record<string, string> = {
  // Accounts
  users: 'src/services/accounts/user-records.ts',
  sessions: 'src/services/accounts/sessions.ts',
  passkeys: 'src/services/accounts/passkeys.ts',
  webauthn_challenges: 'src/services/accounts/passkeys.ts',
  recovery_codes: 'src/services/accounts/totp.ts',
  oauth_providers: 'src/services/accounts/oauth.ts',
  quotas: 'src/services/accounts/quotas.ts',
  invites: 'src/services/accounts/invites.ts',
  api_tokens: 'src/services/accounts/api-tokens.ts',
  user_deletions: 'src/services/accounts/user-deletion.ts',
  ldap_accounts: 'src/services/directory/ldap-accounts.ts',
  // Files and their bytes (blob_deletions and database_objects rows also go by trigger with their file, migrations
  // 0027 and 0033)
  files: 'src/services/files/records.ts',
  file_deletions: 'src/services/files/deletions.ts',
  blob_deletions: 'src/services/files/blob-deletions.ts',
  database_objects: 'src/storage/database-objects.ts',
  pending_objects: 'src/services/uploads/pending-objects.ts',
  // Uploads in progress: the sessions of chunked and tus uploads, and the records of their assembly
  upload_sessions: 'src/services/uploads/sessions.ts',
  incomplete_files: 'src/services/uploads/incomplete-files.ts',
  // Organising and sharing
  folders: 'src/services/organise/folders.ts',
  tags: 'src/services/organise/tags.ts',
  file_tags: 'src/services/organise/tags.ts',
  file_shares: 'src/services/serving/share-links.ts',
  urls: 'src/services/links/short-urls.ts',
  url_slugs: 'src/services/links/short-urls.ts',
  // The instance
  settings: 'src/services/operations/settings.ts',
  jobs: 'src/services/operations/jobs.ts',
  leases: 'src/services/operations/leases.ts',
  server_values: 'src/services/operations/storage-identity.ts',
  exports: 'src/services/exports/user-exports.ts',
  metrics: 'src/services/statistics/snapshots.ts',
  // Derived tables: their triggers (and the batched view totals) are defined in one schema module
  usage_counters: 'src/db/schema/usage-counters.ts',
  type_counters: 'src/db/schema/usage-counters.ts',
  ...Object.fromEntries(
    [...SEARCH_INDEXES.flatMap((index) => [index.numbers, index.fts]), NEW_FILES].map((t) => [t, SEARCH_INDEX_MODULE]),
  ),
};

/** Derived columns that schema triggers keep (table.column -> the module whose trigger definitions write them). */
const TRIGGER_WRITERS: Record<string, string> = {
  'folders.file_count': 'src/db/schema/list-counters.ts',
  'tags.file_count': 'src/db/schema/list-counters.ts',
};

/**
 * The few modules that build SQL for several tables alike and name the table by a variable (`${fts}`): which tables
 * each variable stands for. Anywhere else a table must be named literally.
 */
const TABLE_VARIABLES: Record<string, Record<string, readonly string[]>> = {
  [SEARCH_INDEX_MODULE]: {
    numbers: SEARCH_INDEXES.map((index) => index.numbers),
    fts: SEARCH_INDEXES.map((index) => index.fts),
    NEW_FILES: [NEW_FILES],
  },
  'src/db/schema/list-counters.ts': { table: ['folders', 'tags'] },
};

/** One write found in the source: `table` null when the statement does not name it literally. */
interface TableWrite {
  line: number;
  form: string;
  table: string | null;
  /** The first column an `update ... set` sets (raw SQL only). */
  column?: string;
  /** How the table was named, when not literally. */
  expression?: string;
}

const KYSELY_WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
// A table: a name, an interpolation, or nothing more in this literal (a name concatenated after it).
const TABLE = String.raw`("[\w.]+"|[\w.]+|\$\{[^}]*\}|(?=['"\x60]$))`;
const RAW_WRITES: Array<{ form: string; pattern: RegExp }> = [
  { form: 'insert into', pattern: new RegExp(String.raw`\binsert\s+(?:or\s+\w+\s+)?into\s+${TABLE}`, 'gi') },
  {
    form: 'update ... set',
    pattern: new RegExp(String.raw`\bupdate\s+${TABLE}(?:\s+(?:as\s+)?\w+)?\s+set\s+"?(\w+)`, 'gi'),
  },
  { form: 'delete from', pattern: new RegExp(String.raw`\bdelete\s+from\s+${TABLE}`, 'gi') },
];

/** A table as SQL names it: without quotes or schema; an interpolation `${sql.id(x)}` -> null (variable x). */
function tableName(written: string): { table: string | null; expression?: string } {
  if (written === '') return { table: null, expression: '(a name added to the string)' };
  const interpolated = /^\$\{(.*)\}$/s.exec(written);
  if (interpolated) return { table: null, expression: interpolated[1]!.trim() };
  return { table: written.replaceAll('"', '').split('.').at(-1)! };
}

/** The text of a string or template literal as written, its interpolations blanked unless they are a plain name. */
function literalText(
  node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression,
  source: string,
) {
  const start = node.getStart();
  let text = source.slice(start, node.end);
  if (ts.isTemplateExpression(node)) {
    for (const span of node.templateSpans) {
      const expression = span.expression.getText();
      // A nested template or call with a literal is read on its own: blanked here (keeping the lines) so it counts once.
      if (/^[\w.]+(\([\w.]+\))?$/.test(expression)) continue;
      const from = span.expression.getStart() - start;
      const to = span.expression.end - start;
      text = text.slice(0, from) + text.slice(from, to).replace(/[^\n]/g, ' ') + text.slice(to);
    }
  }
  return { text, start };
}

/** Every write of a table in a module's source text. */
function tableWrites(fileName: string, source: string): TableWrite[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => file.getLineAndCharacterOfPosition(position).line + 1;
  const found: TableWrite[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      KYSELY_WRITES.has(node.expression.name.text)
    ) {
      const [argument] = node.arguments;
      const form = `${node.expression.name.text}(`;
      const line = lineOf(node.expression.name.getStart());
      if (argument && ts.isStringLiteralLike(argument)) {
        found.push({ line, form, table: argument.text.replace(/\s+as\s+\w+\s*$/i, '').trim() });
      } else {
        found.push({ line, form, table: null, expression: argument?.getText() ?? '' });
      }
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const { text, start } = literalText(node, source);
      for (const { form, pattern } of RAW_WRITES) {
        for (const match of text.matchAll(pattern)) {
          const line = lineOf(start + match.index);
          found.push({ line, form, ...tableName(match[1]!), ...(match[2] ? { column: match[2] } : {}) });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found.sort((a, b) => a.line - b.line);
}

/** The tables a write may be of: its literal table, or those its variable stands for in this module. */
function writtenTables(module: string, write: TableWrite): string[] | null {
  if (write.table !== null) return [write.table];
  const variable = /^(?:sql\.(?:id|table|raw)\()?(\w+)\)?$/.exec(write.expression ?? '')?.[1];
  return (variable && TABLE_VARIABLES[module]?.[variable]?.slice()) || null;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (full === MIGRATIONS) return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return entry.endsWith('.ts') ? [full] : [];
  });
}

/** The writes of src/ that are not their table's owner's, as lines of the failure message. */
function writesOutsideOwners(): string[] {
  const problems: string[] = [];
  for (const full of sourceFiles(SRC)) {
    const module = path.relative(ROOT, full).split(path.sep).join('/');
    for (const write of tableWrites(module, readFileSync(full, 'utf8'))) {
      const where = `${module}:${write.line} ${write.form}`;
      const tables = writtenTables(module, write);
      if (tables === null) {
        problems.push(
          `${where} ${write.expression}: a table named by a variable; name the table literally ` +
            `(one statement per table) so that this check can see which it is`,
        );
        continue;
      }
      for (const table of tables) {
        const owner = OWNERS[table];
        if (owner === module) continue;
        if (write.column !== undefined && TRIGGER_WRITERS[`${table}.${write.column}`] === module) continue;
        problems.push(
          owner === undefined
            ? `${where} ${table}: a table the owner map does not know (add it to OWNERS)`
            : `${where} ${table}: written outside its owner, ${owner} (call a function of the owner instead)`,
        );
      }
    }
  }
  return problems;
}

/** The tables of the Database interface (src/db/schema/tables.ts). */
function databaseTables(): string[] {
  const file = path.join(SRC, 'db', 'schema', 'tables.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const database = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Database',
  );
  assert.ok(database, 'src/db/schema/tables.ts declares no Database interface');
  return database.members.map((m) => (m.name as ts.Identifier).text);
}

test('every write of a table in src/ is in the module that owns the table', () => {
  const problems = writesOutsideOwners();
  if (problems.length > 0) assert.fail(`writes outside their owner:\n${problems.map((p) => `  ${p}`).join('\n')}`);
});

test('every table has an owner, and every owner is a module of src/', () => {
  const tables = [...databaseTables(), ...SEARCH_INDEXES.flatMap((index) => [index.numbers, index.fts]), NEW_FILES];
  assert.deepEqual(
    tables.filter((t) => OWNERS[t] === undefined),
    [],
    'tables without an owner in OWNERS',
  );
  assert.deepEqual(
    Object.keys(OWNERS).filter((t) => !tables.includes(t)),
    [],
    'owners of tables that do not exist',
  );
  const modules = [...new Set([...Object.values(OWNERS), ...Object.values(TRIGGER_WRITERS)])];
  const present = new Set(sourceFiles(SRC));
  assert.deepEqual(
    modules.filter((m) => !present.has(path.join(ROOT, m))),
    [],
    'owners that are not modules of src/',
  );
});

test('the scanner finds every form of write (so the check cannot pass by finding nothing)', () => {
  const source = [
    "await db.insertInto('files').values(row).execute();",
    "await trx.updateTable('users as u').set({ role }).execute();",
    "await db.deleteFrom('sessions').where('id', '=', id).execute();",
    "db.replaceInto('tags'); db.mergeInto('urls');",
    'await db.updateTable(target).set({ views: 1 }).execute();',
    'await sql`INSERT OR IGNORE INTO quotas (id) values (${id})`.execute(db);',
    "await sql.raw('update folders set file_count = 0').execute(db);",
    'const text = `delete from "invites" where id = ?`;',
    'const fill = `insert into ${sql.id(numbers)} (seq) select 1`;',
    "await sql`delete from ${sql.table('files')} where 1 = 1`.execute(db);",
    "const glued = 'insert or replace into ' + table;",
    '// insert into comments is not SQL',
  ].join('\n');
  const found = tableWrites('example.ts', source).map((w) => [w.line, w.form, w.table ?? w.expression, w.column]);
  assert.deepEqual(found, [
    [1, 'insertInto(', 'files', undefined],
    [2, 'updateTable(', 'users', undefined],
    [3, 'deleteFrom(', 'sessions', undefined],
    [4, 'replaceInto(', 'tags', undefined],
    [4, 'mergeInto(', 'urls', undefined],
    [5, 'updateTable(', 'target', undefined],
    [6, 'insert into', 'quotas', undefined],
    [7, 'update ... set', 'folders', 'file_count'],
    [8, 'delete from', 'invites', undefined],
    [9, 'insert into', 'sql.id(numbers)', undefined],
    [10, 'delete from', '', undefined],
    [11, 'insert into', '(a name added to the string)', undefined],
  ]);
  // Multi-line SQL in a template with nested templates: each write once, on its own line.
  const nested = 'const s = `with d as (select 1)\n  update usage_counters as c set files = ${x ? `0` : `1`}`;';
  assert.deepEqual(
    tableWrites('example.ts', nested).map((w) => [w.line, w.table, w.column]),
    [[2, 'usage_counters', 'files']],
  );
});
