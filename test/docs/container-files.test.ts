// The container files (Dockerfile, compose.yaml, compose.s3.yaml; docs/install.md) agree with the code: they name only
// environment variables Chute reads, run what `npm start` runs and keep the state in /data. scripts/container-test.sh
// builds and runs the image itself (in CI); this catches a renamed variable or entry point without Docker.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ENV_VARIABLES } from '../../src/config.js';
import { SETTING_DEFINITIONS } from '../../src/services/operations/settings.js';

const KNOWN_VARIABLES = new Set([
  ...Object.keys(ENV_VARIABLES),
  ...Object.values(SETTING_DEFINITIONS).map((d) => d.env),
]);

async function repoFile(name: string): Promise<string> {
  return readFile(new URL(`../../${name}`, import.meta.url), 'utf8');
}

interface ComposeService {
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] };
  profiles?: string[];
}

for (const file of ['compose.yaml', 'compose.s3.yaml']) {
  test(`${file}: Chute's service names only variables Chute reads, keeps /data in a named volume, waits for PostgreSQL`, async () => {
    const compose = parse(await repoFile(file)) as {
      services: Record<string, ComposeService>;
      volumes: Record<string, unknown>;
    };
    const chute = compose.services.chute;
    assert.ok(chute, 'a service named chute');
    const names = Object.keys(chute.environment ?? {});
    assert.deepEqual(
      names.filter((n) => !KNOWN_VARIABLES.has(n)),
      [],
      'variables that src/config.ts and src/services/operations/settings.ts do not know',
    );
    assert.ok(names.includes('DATABASE_URL'));
    assert.ok(chute.volumes?.includes('chute-data:/data'), 'the volume chute-data at /data');
    assert.ok('chute-data' in compose.volumes && 'postgres-data' in compose.volumes, 'named volumes');
    assert.equal(chute.depends_on?.postgres?.condition, 'service_healthy');
    assert.match((chute.healthcheck?.test ?? []).join(' '), /\/api\/healthcheck/);
    assert.ok(compose.services.postgres?.healthcheck, 'PostgreSQL has a health check');
    assert.deepEqual(compose.services.redis?.profiles, ['redis'], 'Redis only with the redis profile');
  });
}

test('Dockerfile: runs what npm start runs, as a non-root user, with the variables Chute reads and /data', async () => {
  const dockerfile = (await repoFile('Dockerfile')).replace(/\\\n\s*/g, ' ');
  const pkg = JSON.parse(await repoFile('package.json')) as { scripts: Record<string, string> };
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  assert.ok(cmd, 'an exec-form CMD');
  assert.deepEqual(
    JSON.parse(cmd),
    pkg.scripts.start?.split(' '),
    'CMD is `npm start` without npm and without a shell',
  );
  assert.doesNotMatch(dockerfile, /^ENTRYPOINT /m, 'no entry point (a shell would stand between docker and Node.js)');

  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env = Object.fromEntries(
    [...runtime.matchAll(/^ENV (.*)$/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/([A-Z_]+)=(\S+)/g)].map((kv) => [kv[1]!, kv[2]!]),
    ),
  );
  assert.deepEqual(
    Object.keys(env).filter((n) => n !== 'NODE_ENV' && !KNOWN_VARIABLES.has(n)),
    [],
    'variables that src/config.ts does not know',
  );
  assert.equal(env.DATA_DIR, '/data');
  assert.equal(env.PORT, '3000');
  assert.match(runtime, /^VOLUME \/data$/m);
  assert.match(runtime, /^USER chute$/m);
  assert.match(runtime, /^HEALTHCHECK .*\/api\/healthcheck/m);
  assert.match(runtime, /apt-get install [^\n]*\bffmpeg\b/);
});
