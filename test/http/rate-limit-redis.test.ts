// With REDIS_URL, two instances share their rate-limit counters: a client cannot double its allowance by
// alternating between them behind a load balancer.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Redis } from 'ioredis';
import { randomString } from '../../src/lib/security/ids.js';
import { createPostgresDatabase, startTestServer } from '../support/server.js';

const REDIS = process.env.TEST_REDIS_URL;
if (!REDIS) console.log('# NOTICE: TEST_REDIS_URL is not set: the shared (Redis) rate-limit test is SKIPPED');

it(
  'two instances on one Redis share the login limit',
  { skip: REDIS ? false : 'TEST_REDIS_URL is not set' },
  async () => {
    const prefix = `chute-test-${randomString(10)}:`;
    // Both instances share one database too, as they would behind a load balancer.
    const shared = process.env.TEST_DATABASE_URL ? await createPostgresDatabase() : undefined;
    const env = { REDIS_URL: REDIS!, REDIS_PREFIX: prefix, SECRET: 's'.repeat(40) };
    const a = await startTestServer({ engine: shared ? 'postgres' : 'sqlite', env, databaseUrl: shared?.url });
    const b = await startTestServer({
      engine: shared ? 'postgres' : 'sqlite',
      env,
      databaseUrl: shared?.url,
      dataDir: a.dataDir,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const server = i % 2 === 0 ? a : b;
        statuses.push(
          (await server.json('POST', '/api/auth/login', { body: { username: 'x', password: 'y' } })).status,
        );
      }
      assert.deepEqual(statuses, [...Array(10).fill(400), 429, 429]);
    } finally {
      await b.close();
      await a.close();
      await shared?.drop();
      const redis = new Redis(REDIS!);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  },
);
