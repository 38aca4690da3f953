// The OpenAPI document is generated from the route schemas; this checks it against the specification.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import { ERROR_CODES } from '../../../src/lib/error-codes.js';
import { forEachDatabase, useTestServer } from '../../support/server.js';

forEachDatabase('GET /api/openapi.json', (engine) => {
  const server = useTestServer({ engine });
  let doc: any;
  let spec: string;
  before(async () => {
    doc = (await server().json('GET', '/api/openapi.json')).body;
    spec = await readFile(new URL('../../../docs/api-spec.md', import.meta.url), 'utf8');
  });

  it('is OpenAPI 3.1 with version 4.7.0', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '4.7.0');
    assert.match(spec, /carries version 4\.7\.0/);
  });

  it('lists exactly the specification codes in the error code enum', () => {
    const error = doc.components.schemas.Error;
    const codeSchema = error.properties.code;
    const values: number[] = codeSchema.enum ?? codeSchema.anyOf?.map((c: { const: number }) => c.const);
    assert.deepEqual([...values].sort(), [...ERROR_CODES].sort());
    assert.deepEqual([...error.required].sort(), ['code', 'error', 'statusCode']);
  });

  it('documents every specified endpoint, with error responses', () => {
    const endpoints: Array<[string, string]> = [
      ['/api/healthcheck', 'get'],
      ['/api/setup', 'get'],
      ['/api/setup', 'post'],
      ['/api/user', 'get'],
      ['/api/user', 'patch'],
    ];
    for (const [path, method] of endpoints) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} missing`);
      assert.ok(op.responses['200'], `${method} ${path} has no 200`);
      assert.ok(op.responses['4XX'], `${method} ${path} documents no 4xx`);
    }
    assert.ok(!doc.paths['/api/openapi.json'], 'the document itself is hidden');
  });

  it('describes the User exactly as the specification table', () => {
    const user = doc.components.schemas.User;
    const table = spec.slice(spec.indexOf('### User'), spec.indexOf('### UserViewSettings'));
    const rows = [...table.matchAll(/^\| (\w+) \| [^|]+ \| (yes|no) \|/gm)].map((m) => [m[1]!, m[2]!] as const);
    assert.ok(rows.length >= 12);
    assert.deepEqual(Object.keys(user.properties).sort(), rows.map(([name]) => name).sort());
    assert.deepEqual(
      [...user.required].sort(),
      rows
        .filter(([, req]) => req === 'yes')
        .map(([n]) => n)
        .sort(),
    );
    assert.deepEqual(user.properties.role.enum, ['USER', 'ADMIN', 'SUPERADMIN']);
  });

  it('has only $refs that resolve as JSON pointers within the document', () => {
    const refs = refsOf(doc);
    assert.ok(refs.length > 100, 'the document has its shapes as components');
    for (const { at, ref } of refs) {
      assert.ok(ref.startsWith('#/'), `${at}: ${ref} does not point into the document`);
      assert.equal(ref.indexOf('#', 1), -1, `${at}: ${ref} has two #`);
      assert.notEqual(resolvePointer(doc, ref), undefined, `${at}: ${ref} does not resolve`);
    }
  });

  it("describes a passkey's reg as any JSON value, a component of its own", () => {
    for (const name of ['Passkey', 'PasskeyInput']) {
      const reg = doc.components.schemas[name].properties.reg;
      assert.ok(reg.$ref, `${name}.reg is a reference`);
      const json = resolvePointer(doc, reg.$ref);
      const types = json.anyOf.map((s: { type: string }) => s.type).sort();
      assert.deepEqual(types, ['array', 'boolean', 'null', 'number', 'object', 'string']);
      assert.equal(json.anyOf.find((s: { type: string }) => s.type === 'array').items.$ref, reg.$ref);
    }
  });

  it('makes the setup answer closed to additional properties', () => {
    const schema = doc.paths['/api/setup'].post.responses['200'].content['application/json'].schema;
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual([...schema.required].sort(), ['firstSetup', 'user']);
  });
});

/** Every `$ref` of the document, with the path of the object holding it. */
function refsOf(value: unknown, at = '#'): Array<{ at: string; ref: string }> {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [{ at, ref: child }] : refsOf(child, `${at}/${key}`),
  );
}

/** Resolves a URI fragment `#/a/b` as a JSON pointer (RFC 6901) in `document`; undefined when it does not. */
function resolvePointer(document: unknown, ref: string): any {
  const tokens = ref
    .slice(2)
    .split('/')
    .map((t) => decodeURIComponent(t).replaceAll('~1', '/').replaceAll('~0', '~'));
  let node: unknown = document;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
