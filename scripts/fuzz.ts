// A longer run of the HTTP fuzz than `npm test` makes (test/support/fuzz.ts): `npm run fuzz -- --runs 5000 --seed 42`.
// Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set; prints the seed, so a failure can be replayed.
import { parseArgs } from 'node:util';
import { makeUser, NO_RATE_LIMIT } from '../test/support/factory.js';
import { fuzzServer } from '../test/support/fuzz.js';
import { ENGINES, withTestServer } from '../test/support/server.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    engine: { type: 'string' },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
const engines = values.engine ? ENGINES.filter((e) => e === values.engine) : ENGINES;

for (const engine of engines) {
  console.log(`fuzz: ${runs} requests, seed ${seed}, ${engine}`);
  await withTestServer(
    { engine, env: { ...NO_RATE_LIMIT, REQUEST_IDLE_TIMEOUT: '2', REQUEST_BODY_TIMEOUT: '5' } },
    async (server) => {
      const admin = await server.setup('fuzzadmin', 'fuzz-admin-password');
      const user = await makeUser(server, { username: 'fuzzuser' });
      await fuzzServer(server, { token: admin.token, cookie: user.cookie }, { runs, seed });
    },
  );
  console.log(`fuzz: ${engine} passed`);
}
