// The fuzz suite in CI (issue 15, item 21): a fixed seed and a short run on SQLite and PostgreSQL (FUZZ_SEED and
// FUZZ_RUNS change them; `npm run fuzz` is the longer run).
import { before, it } from 'node:test';
import { NO_RATE_LIMIT } from '../support/factory.js';
import { forEachDatabase, useTestServer } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';
import { fuzzServer, type FuzzTarget } from './api-fuzz.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

forEachDatabase('fuzzed requests', (engine) => {
  const server = useTestServer({ engine, env: { ...NO_RATE_LIMIT, REQUEST_BODY_TIMEOUT: '5' } });
  let target: FuzzTarget;
  before(async () => {
    const admin = await server().setup('fuzzer', 'fuzzer-password');
    const file = await uploadOne(server(), admin.token, 'fuzzed', { name: 'fuzz.txt' });
    const folder = await server().json('POST', '/api/user/folders', { auth: admin.token, body: { name: 'fuzz' } });
    target = {
      url: server().url,
      token: admin.token,
      cookie: admin.cookie,
      fileName: file.name,
      fileId: file.id,
      folderId: folder.body.id,
    };
  });

  it(`no 5xx, every API error in the spec's shape, still healthy (seed ${SEED}, ${RUNS} requests)`, async () => {
    await fuzzServer(target, { seed: SEED, numRuns: RUNS });
  });
});
