// The longer fuzz run (npm run fuzz): the same fuzzer as test/fuzz/api.test.ts, with more requests and a fresh seed
// each run (printed, to replay a failure), against a fresh Chute on SQLite and, with TEST_DATABASE_URL, PostgreSQL.
// Usage: npm run fuzz -- [--runs 5000] [--seed 1234] [--engine sqlite|postgres]
import { parseArgs } from 'node:util';
import { fuzzServer } from '../test/fuzz/api-fuzz.js';
import { NO_RATE_LIMIT } from '../test/support/factory.js';
import { ENGINES, withTestServer } from '../test/support/server.js';
import { uploadOne } from '../test/support/uploads.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3000' }, seed: { type: 'string' }, engine: { type: 'string' } },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const engines = values.engine ? ENGINES.filter((e) => e === values.engine) : ENGINES;

let failed = false;
for (const engine of engines) {
  console.log(`fuzz: ${engine}, seed ${seed}, ${values.runs} requests`);
  await withTestServer({ engine, env: { ...NO_RATE_LIMIT, REQUEST_BODY_TIMEOUT: '5' } }, async (server) => {
    const admin = await server.setup('fuzzer', 'fuzzer-password');
    const file = await uploadOne(server, admin.token, 'fuzzed', { name: 'fuzz.txt' });
    const folder = await server.json('POST', '/api/user/folders', { auth: admin.token, body: { name: 'fuzz' } });
    try {
      await fuzzServer(
        {
          url: server.url,
          token: admin.token,
          cookie: admin.cookie,
          fileName: file.name,
          fileId: file.id,
          folderId: folder.body.id,
        },
        { seed, numRuns: Number(values.runs) },
      );
      console.log(`fuzz: ${engine}: no failure`);
    } catch (err) {
      failed = true;
      console.error(`fuzz: ${engine}: FAILED (replay with --seed ${seed} --engine ${engine})\n${String(err)}`);
    }
  });
}
process.exit(failed ? 1 : 0);
