// GET /metrics, the Prometheus endpoint: off (404) until metricsToken holds a token; every scrape sends it as a bearer
// token (401 otherwise); the answer is valid Prometheus text (checked by the parser below, after the exposition
// format's rules); request counts by route pattern grow with requests; bytes uploaded and served, job failures, and
// the figures read from the database (queue depth, storage used) say what happened.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { JobWorker } from '../../../src/services/operations/job-worker.js';
import { enqueueJobs, PermanentJobError } from '../../../src/services/operations/jobs.js';
import { assertError } from '../../support/api-errors.js';
import { NO_RATE_LIMIT } from '../../support/factory.js';
import {
  forEachDatabase,
  startTestServer,
  useTestServer,
  withSharedState,
  withTestServer,
  type TestServer,
  type TestUser,
} from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';
import { uploadInChunks } from '../../support/chunked-uploads.js';
import http from 'node:http';

const TOKEN = 'scrape-token-0123456789abcdef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_PAIR = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/;
const SUFFIXES: Record<string, string[]> = {
  counter: ['_total', ''],
  gauge: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
  untyped: [''],
};

/** A sample value as the text format writes it: a float, or exactly NaN, +Inf or -Inf (prom-client can write Nan). */
function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  assert.match(text, /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/, `not a sample value: ${text}`);
  return Number(text);
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const match = LABEL_PAIR.exec(rest);
    assert.ok(match, `malformed labels: {${text}}`);
    assert.equal(labels[match[1]!], undefined, `label ${match[1]} twice`);
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    rest = rest.slice(match[0].length);
  }
  return labels;
}

/**
 * The text exposition format (version 0.0.4): HELP and TYPE lines before a family's samples, each family once, sample
 * names that belong to their family's type, well-formed labels and values, and histograms whose buckets are
 * cumulative and end with le="+Inf" equal to _count.
 */
function parsePrometheusText(text: string): Map<string, Family> {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const families = new Map<string, Family>();
  let current: { name: string; family: Family } | undefined;
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      assert.match(name!, NAME);
      if (kind === 'HELP') {
        assert.ok(!families.has(name!) || current?.name === name, `${name} is described twice`);
        if (!families.has(name!)) families.set(name!, { type: 'untyped', help: rest!, samples: [] });
        families.get(name!)!.help = rest!;
      } else {
        assert.ok(rest! in SUFFIXES, `unknown type ${rest}`);
        const family = families.get(name!) ?? { type: rest!, help: '', samples: [] };
        assert.equal(family.samples.length, 0, `TYPE of ${name} after its samples`);
        family.type = rest!;
        families.set(name!, family);
      }
      current = { name: name!, family: families.get(name!)! };
      continue;
    }
    assert.ok(!line.startsWith('#') || line.startsWith('# '), `malformed comment: ${line}`);
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    assert.ok(sample, `malformed sample line: ${line}`);
    const [, name, labels, value] = sample;
    assert.ok(current, `sample before any TYPE: ${line}`);
    const suffix = SUFFIXES[current.family.type]!.find((s) => name === current!.name + s);
    assert.ok(suffix !== undefined, `${name} does not belong to ${current.name} (${current.family.type})`);
    current.family.samples.push({ name: name!, labels: parseLabels(labels ?? ''), value: parseValue(value!) });
  }
  for (const [name, family] of families) {
    if (family.type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const s of family.samples.filter((x) => x.name === `${name}_bucket`)) {
      const { le, ...rest } = s.labels;
      assert.ok(le !== undefined, `${name}_bucket without le`);
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), s]);
    }
    for (const [key, buckets] of series) {
      for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative');
      const last = buckets.at(-1)!;
      assert.equal(last.labels.le, '+Inf');
      const count = family.samples.find((s) => s.name === `${name}_count` && JSON.stringify(s.labels) === key);
      assert.equal(count?.value, last.value, `${name}_count equals its +Inf bucket`);
    }
  }
  return families;
}

/** The value of one sample (0 when the series does not exist yet). */
function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const familyName = [...families.keys()].find((f) => name === f || name.startsWith(`${f}_`)) ?? name;
  const family = families.get(familyName);
  const sample = family?.samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return sample?.value ?? 0;
}

forEachDatabase('GET /metrics (Prometheus)', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;

  before(async () => {
    root = await server().setup('root', 'root-password');
  });

  const setToken = async (metricsToken: string | null) => {
    const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { metricsToken } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  const scrape = async (): Promise<Map<string, Family>> => {
    const res = await server().fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(text);
  };

  it('is off by default: 404 in the spec error shape, whatever the credentials', async () => {
    assertError(await server().json('GET', '/metrics'), 404, 9002);
    assertError(await server().json('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }), 404, 9002);
  });

  it('refuses a token too short to guess safely (1022)', async () => {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: root.token,
      body: { metricsToken: 'short' },
    });
    assertError(res, 400, 1022);
  });

  it('answers 401 without the bearer token or with a wrong one, once a token is set', async () => {
    await setToken(TOKEN);
    for (const authorization of [
      undefined,
      '',
      'Bearer',
      'Bearer wrong-token-0123456789abcdef',
      `Bearer ${TOKEN}x`,
      `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`,
      TOKEN,
    ]) {
      const res = await server().json(
        'GET',
        '/metrics',
        authorization === undefined ? {} : { headers: { authorization } },
      );
      assertError(res, 401, 2002, String(authorization));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    }
    // A user's API token or session is no scrape token either.
    assertError(await server().json('GET', '/metrics', { auth: root.token }), 401, 2002);
  });

  it('answers valid Prometheus text whose request counts, by route pattern, grow with requests', async () => {
    const route = { method: 'GET', route: '/api/user', status_code: '200' };
    const before = valueOf(await scrape(), 'chute_http_requests_total', route);
    for (let i = 0; i < 3; i++)
      assert.equal((await server().json('GET', '/api/user', { auth: root.token })).status, 200);
    const families = await scrape();
    assert.equal(valueOf(families, 'chute_http_requests_total', route), before + 3);
    assert.equal(families.get('chute_http_requests_total')?.type, 'counter');
    assert.equal(families.get('chute_http_request_duration_seconds')?.type, 'histogram');
    assert.ok(valueOf(families, 'chute_http_request_duration_seconds_count', route) >= 3);
    // Errors are counted with their status.
    assertError(await server().json('GET', '/api/user'), 401, 2002);
    const after = await scrape();
    assert.equal(valueOf(after, 'chute_http_requests_total', { ...route, status_code: '401' }), 1);
    // The process's own metrics come along (Node's default collectors).
    assert.ok(after.has('process_cpu_user_seconds_total'));
    assert.ok(after.has('nodejs_eventloop_lag_seconds'));
  });

  it('counts bytes uploaded and served, labelled by the route pattern, never by a file name', async () => {
    const start = await scrape();
    const content = 'z'.repeat(1000);
    const file = await uploadOne(server(), root.token, content, { name: 'z.txt', type: 'text/plain' });
    const name = new URL(file.url).pathname.split('/').pop()!;
    for (let i = 0; i < 2; i++) {
      const res = await server().fetch(`/raw/${name}`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), content);
    }
    // A HEAD sends no bytes.
    assert.equal((await server().fetch(`/raw/${name}`, { method: 'HEAD' })).status, 200);
    const families = await scrape();
    assert.equal(valueOf(families, 'chute_uploaded_bytes_total') - valueOf(start, 'chute_uploaded_bytes_total'), 1000);
    assert.equal(valueOf(families, 'chute_served_bytes_total') - valueOf(start, 'chute_served_bytes_total'), 2000);
    assert.equal(valueOf(families, 'chute_uploads_in_flight'), 0);
    assert.equal(valueOf(families, 'chute_http_requests_total', { method: 'GET', route: '/raw/:name' }), 2);
    assert.equal(valueOf(families, 'chute_http_requests_total', { method: 'HEAD', route: '/raw/:name' }), 1);
    const routes = new Set(families.get('chute_http_requests_total')!.samples.map((s) => s.labels.route));
    assert.ok(![...routes].some((r) => r?.includes(name)), `a file name became a label: ${[...routes].join(' ')}`);
    // Storage used and files come from the stored counters.
    assert.equal(valueOf(families, 'chute_storage_used_bytes'), 1000);
    assert.equal(valueOf(families, 'chute_stored_files'), 1);
    assert.equal(valueOf(families, 'chute_users'), 1);
  });

  it('counts chunks of a chunked upload as uploaded bytes', async () => {
    const start = valueOf(await scrape(), 'chute_uploaded_bytes_total');
    const file = Buffer.alloc(300 * 1024, 7);
    const res = await uploadInChunks(server(), root.token, file, [128 * 1024, 128 * 1024, 44 * 1024]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(valueOf(await scrape(), 'chute_uploaded_bytes_total') - start, file.length);
  });

  it('shows an upload in flight while its bytes stream in, and none after', async () => {
    const boundary = 'metrics-test-boundary';
    const url = new URL('/api/upload', server().url);
    const request = http.request(url, {
      method: 'POST',
      headers: { authorization: root.token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const answer = new Promise<number>((resolve, reject) => {
      request.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      request.on('error', reject);
    });
    request.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\n${'s'.repeat(1000)}`,
    );
    // The file part has begun: the gauge says so until the upload ends (polled, not timed).
    let scrapes = 0;
    while (valueOf(await scrape(), 'chute_uploads_in_flight') !== 1) {
      assert.ok(++scrapes < 2000, 'the upload never showed as in flight');
      await new Promise((resolve) => setImmediate(resolve));
    }
    request.end(`${'s'.repeat(1000)}\r\n--${boundary}--\r\n`);
    assert.equal(await answer, 200);
    assert.equal(valueOf(await scrape(), 'chute_uploads_in_flight'), 0);
  });

  it('shows the queue depth from the database and counts job failures', async () => {
    const ctx = server().ctx;
    await enqueueJobs(ctx.db, ctx.clock.now(), [
      { kind: 'metrics-test-fail', payload: null, maxAttempts: 1 },
      { kind: 'metrics-test-wait', payload: null, runAfter: ctx.clock.now() + 3_600_000 },
    ]);
    let families = await scrape();
    assert.equal(valueOf(families, 'chute_job_queue_depth'), 2);
    assert.equal(valueOf(families, 'chute_jobs', { kind: 'metrics-test-fail', state: 'queued' }), 1);
    const worker = new JobWorker(ctx, {
      'metrics-test-fail': async () => {
        throw new PermanentJobError('a broken file');
      },
    });
    assert.equal(await worker.runUntilIdle(), 1);
    families = await scrape();
    assert.equal(valueOf(families, 'chute_job_failures_total', { kind: 'metrics-test-fail' }), 1);
    assert.equal(valueOf(families, 'chute_job_queue_depth'), 1);
    assert.equal(valueOf(families, 'chute_jobs', { kind: 'metrics-test-fail', state: 'failed' }), 1);
    // A state with no job any more leaves the exposition.
    assert.ok(
      !families
        .get('chute_jobs')!
        .samples.some((s) => s.labels.kind === 'metrics-test-fail' && s.labels.state === 'queued'),
    );
  });

  it('goes off again (404) when the token is cleared', async () => {
    await setToken(null);
    assertError(await server().json('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }), 404, 9002);
  });
});

forEachDatabase('GET /metrics of a new server', (engine) => {
  it('answers valid exposition text on the very first scrape, with no gauge left without a value', async () => {
    await withTestServer({ engine, env: { ...NO_RATE_LIMIT, METRICS_TOKEN: TOKEN } }, async (server) => {
      for (let scrape = 1; scrape <= 2; scrape++) {
        const res = await server.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
        const text = await res.text();
        assert.equal(res.status, 200, text);
        const families = parsePrometheusText(text);
        assert.ok(families.has('nodejs_eventloop_lag_seconds'), `scrape ${scrape} has the default metrics`);
        for (const [name, family] of families) {
          for (const sample of family.samples) {
            assert.ok(!Number.isNaN(sample.value), `scrape ${scrape}: ${sample.name} of ${name} is NaN`);
          }
        }
        // The event loop delay's gauges have values all together or none (not the empty histogram's 2^63 ns).
        const delayGauges = [...families]
          .filter(
            ([n, family]) =>
              /^nodejs_eventloop_lag_(min|max|mean|stddev|p\d+)_seconds$/.test(n) && family.samples.length > 0,
          )
          .map(([n]) => n);
        assert.ok(delayGauges.length === 0 || delayGauges.length === 7, `scrape ${scrape}: ${delayGauges.join(' ')}`);
        if (delayGauges.length === 7) assert.ok(valueOf(families, 'nodejs_eventloop_lag_min_seconds') < 3600);
      }
    });
  });
});

forEachDatabase('GET /metrics with two instances', (engine) => {
  it("counts each instance's own requests; the figures from the database are the same on both", async () => {
    await withSharedState(engine, async (shared) => {
      const env = { ...NO_RATE_LIMIT, METRICS_TOKEN: TOKEN };
      const a = await startTestServer({ engine, ...shared, env: { ...env, INSTANCE_ID: 'one' } });
      const b = await startTestServer({ engine, ...shared, env: { ...env, INSTANCE_ID: 'two' } });
      try {
        const scrapeOf = async (server: TestServer) => {
          const res = await server.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
          assert.equal(res.status, 200);
          return parsePrometheusText(await res.text());
        };
        const admin = await a.setup('root', 'root-password');
        await uploadOne(a, admin.token, 'q'.repeat(4096), { name: 'q.txt', type: 'text/plain' });
        for (let i = 0; i < 4; i++) assert.equal((await a.json('GET', '/api/user', { auth: admin.token })).status, 200);
        assert.equal((await b.json('GET', '/api/user', { auth: admin.token })).status, 200);
        const [onA, onB] = [await scrapeOf(a), await scrapeOf(b)];
        const route = { method: 'GET', route: '/api/user', status_code: '200' };
        // setup() itself reads /api/user once on A.
        assert.equal(valueOf(onA, 'chute_http_requests_total', route), 5);
        assert.equal(valueOf(onB, 'chute_http_requests_total', route), 1);
        assert.equal(valueOf(onA, 'chute_uploaded_bytes_total'), 4096);
        assert.equal(valueOf(onB, 'chute_uploaded_bytes_total'), 0);
        for (const name of ['chute_storage_used_bytes', 'chute_stored_files', 'chute_users', 'chute_job_queue_depth']) {
          assert.equal(valueOf(onA, name), valueOf(onB, name), name);
        }
        assert.equal(valueOf(onB, 'chute_storage_used_bytes'), 4096);
      } finally {
        await b.close();
        await a.close();
      }
    });
  });
});
