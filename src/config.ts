// Reads the environment into one typed, validated configuration object.
// Every bad value is reported with its variable name; nothing else in the code reads process.env.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { parseByteSize } from './lib/text/sizes.js';

/** A boolean variable: true, false, 1, 0, yes or no (the reference generator names this type). */
export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One trusted proxy: an address, a CIDR (address/prefix) or one of proxy-addr's range names. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** What TRUST_PROXY takes, said by each refusal so that the next try is one the server starts with. */
const TRUST_PROXY_VALUES =
  'TRUST_PROXY takes false (none), the number of proxies in front of Chute (e.g. 1), or their addresses or CIDRs, ' +
  'comma-separated (e.g. 127.0.0.1,10.0.0.0/8; also the ranges loopback, linklocal, uniquelocal)';

/**
 * TRUST_PROXY: `false` (none), a hop count, or the proxies' addresses and CIDRs (what Fastify's trustProxy takes).
 * A bare `true` (trust every hop) is refused: any client could then choose its address, and so its rate-limit key,
 * with X-Forwarded-For.
 */
export function parseTrustProxy(value: string, ctx: z.RefinementCtx): false | number | string[] {
  const text = value.trim().toLowerCase();
  if (text === 'false' || text === 'no' || text === '0') return false;
  if (text === 'true' || text === 'yes') {
    ctx.addIssue({
      code: 'custom',
      message:
        'trusting every proxy hop lets any client choose its own address (and so its rate-limit key) with ' +
        `X-Forwarded-For. ${TRUST_PROXY_VALUES}`,
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isProxyAddress(e));
  if (bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `not an address: ${bad.join(', ')}. ${TRUST_PROXY_VALUES}` });
    return z.NEVER;
  }
  return entries;
}

/** A byte size such as 104857600, 100mb or 1gb (the reference generator names this type). */
export const byteSizeFromEnv = z.string().transform((value, ctx) => {
  const bytes = parseByteSize(value);
  if (bytes === null) {
    ctx.addIssue({ code: 'custom', message: 'expected a size such as 104857600, 100mb or 1gb' });
    return z.NEVER;
  }
  return bytes;
});

/** What the configuration reference (docs/configuration.md, scripts/config-docs.ts) says of a variable. */
export interface EnvDoc {
  description: string;
  /** What happens while the variable is unset, for one without a default value. */
  unset?: string;
}

/** Attaches a variable's documentation to its schema, where the reference generator reads it. */
function env<T extends z.ZodType>(schema: T, doc: EnvDoc): T {
  return schema.meta({ ...doc });
}

/** The release feed the update check asks by default: the project's latest GitHub release. */
export const DEFAULT_VERSION_CHECK_URL = 'https://api.github.com/repos/chute-server/chute/releases/latest';

/** Every environment variable Chute reads (server settings aside: services/operations/settings.ts), with its documentation. */
export const ENV_VARIABLES = {
  PORT: env(z.coerce.number().int().min(0).max(65535).default(3000), { description: 'TCP port to listen on' }),
  HOST: env(z.string().min(1).default('0.0.0.0'), { description: 'Address to listen on' }),
  DATA_DIR: env(z.string().min(1).default('./data'), {
    description: 'The SQLite database (`chute.db`), uploads, temp files and the generated secret',
  }),
  DATABASE_URL: env(
    z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL')
      .optional(),
    { description: '`postgres://user:pass@host:5432/db` to use PostgreSQL', unset: 'SQLite in `DATA_DIR`' },
  ),
  SECRET: env(z.string().min(32, 'must be at least 32 characters').optional(), {
    description:
      'At least 32 characters. Keys the hashes of tokens and sessions and the encryption of stored tokens. When ' +
      'unset, one is generated once and kept in `DATA_DIR/secret`, so restarts keep everyone logged in. Set it ' +
      'explicitly when several instances share a database.',
    unset: 'generated',
  }),
  INSTANCE_ID: env(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -')
      .optional(),
    {
      description:
        'Names this instance among several sharing a database (1-64 letters, digits, `_`, `-`). When unset, one is ' +
        'generated once and kept in `DATA_DIR/instance-id`; set it only when instances share one `DATA_DIR`, each ' +
        'its own.',
      unset: 'generated',
    },
  ),
  TRUST_PROXY: env(z.string().transform(parseTrustProxy).default(false), {
    description:
      'The reverse proxies in front of Chute, whose `X-Forwarded-*` headers it believes (the client address of rate ' +
      'limits, the scheme of links and of the `Secure` session cookie): their number (`1` for one proxy) or their ' +
      'addresses and CIDRs, comma-separated (`127.0.0.1,10.0.0.0/8`; also `loopback`, `linklocal`, `uniquelocal`). ' +
      '`false` trusts none. `true` is refused: trusting every hop would let any client choose its own address',
  }),
  PUBLIC_URL: env(z.string().url().optional(), {
    description: 'Base URL used in returned links, e.g. `https://files.example.com`',
    unset: "the request's own host",
  }),
  LOG_LEVEL: env(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), {
    description: '`fatal`, `error`, `warn`, `info`, `debug` (logs every request), `trace`, `silent`',
  }),
  JSON_BODY_LIMIT: env(byteSizeFromEnv.prefault('2mb'), {
    description: 'Largest JSON request body (uploads have their own limit)',
  }),
  REQUEST_IDLE_TIMEOUT: env(z.coerce.number().int().min(1).max(3600).default(60), {
    description:
      'Seconds a connection may stay silent in the middle of a request (no byte received or sent) before it is ' +
      'ended (408 when nothing was answered yet). Uploads of any length go on as long as their bytes keep coming',
  }),
  REQUEST_BODY_TIMEOUT: env(z.coerce.number().int().min(1).max(3600).default(30), {
    description:
      'Seconds the whole body of a request that is not an upload (JSON, forms) may take to arrive; past it -> 408. ' +
      'Uploads (multipart bodies) are bounded by `REQUEST_IDLE_TIMEOUT` only',
  }),
  SHUTDOWN_TIMEOUT: env(z.coerce.number().int().min(1).max(25).default(20), {
    description:
      'Seconds a stopping Chute (SIGTERM, SIGINT) lets requests in progress finish before it cuts them and exits; ' +
      'at most 25, within the 30 s that Docker and systemd wait before they kill. An upload cut off leaves nothing',
  }),
  SHUTDOWN_DRAIN_DELAY: env(z.coerce.number().int().min(0).max(24).default(0), {
    description:
      'Seconds a stopping Chute keeps serving with its readiness answer (`/api/readyz`) at 503 before it stops ' +
      'accepting, so that a load balancer checking readiness takes it out of rotation first; part of ' +
      '`SHUTDOWN_TIMEOUT`, and less than it. `0` stops accepting at once (one instance, no load balancer)',
  }),
  REDIS_URL: env(z.string().url().optional(), {
    description: 'Keep rate-limit counters in Redis so that limits hold across several instances',
    unset: 'in memory',
  }),
  REDIS_PREFIX: env(z.string().min(1).default('chute:'), {
    description: 'Prefix of every Redis key Chute writes (to share one Redis between applications)',
  }),
  DASHBOARD_DIR: env(z.string().min(1).optional(), {
    description: 'Folder of the built web dashboard (`npm run build` makes it)',
    unset: '`web/dist` of the installation',
  }),
  // Background work (src/services/operations/jobs.ts, job-worker.ts, thumbnails.ts).
  FFMPEG_PATH: env(z.string().min(1).default('ffmpeg'), {
    description:
      'The ffmpeg program that makes video thumbnails (a name looked up in `PATH`, or a path). When it does not run, ' +
      'video thumbnails are skipped (one line in the log says so)',
  }),
  JOBS_CONCURRENCY: env(z.coerce.number().int().min(0).max(64).default(2), {
    description:
      'Background jobs (thumbnails ...) this instance runs at once; `0` runs none here (other instances sharing the ' +
      'database take them)',
  }),
  JOBS_LEASE_SECONDS: env(z.coerce.number().int().min(5).max(3600).default(60), {
    description:
      'How long a running job stays claimed without its worker renewing the claim (every third of it): when an ' +
      'instance dies, another one takes its jobs over after this long',
  }),
  WEBHOOK_TIMEOUT: env(z.coerce.number().int().min(1).max(120).default(10), {
    description:
      'Seconds each webhook delivery may take (connecting, answering, reading); a slower receiver fails that attempt, ' +
      'which is retried with backoff',
  }),
  // The update check of GET /api/version (setting featuresVersionChecking; services/operations/version.ts).
  VERSION_CHECK_URL: env(z.string().url().default(DEFAULT_VERSION_CHECK_URL), {
    description:
      "Where the update check asks for the latest release: GitHub's releases API answer (`tag_name`, `html_url`) " +
      'or `{"version": "1.2.3", "url": ...}`',
  }),
  VERSION_CHECK_TIMEOUT: env(z.coerce.number().int().min(1).max(120).default(10), {
    description: 'Seconds the update check waits for the release feed before it answers 6001',
  }),
  // Storage (src/storage): where uploaded bytes live.
  DATASOURCE: env(z.enum(['local', 's3']).default('local'), {
    description:
      'Where uploaded files are stored: `local` (a folder) or `s3` (S3-compatible object storage); see ' +
      '[storage](storage.md)',
  }),
  UPLOADS_DIR: env(z.string().min(1).optional(), {
    description: 'Folder of the local datasource',
    unset: '`DATA_DIR/uploads`',
  }),
  UPLOADS_FSYNC: env(booleanFromEnv.default(true), {
    description:
      'Acknowledge an upload only once its bytes are on disk (fsync); `false` is faster but a crash may lose files ' +
      'uploaded in the last seconds',
  }),
  UPLOADS_INLINE_MAX: env(byteSizeFromEnv.prefault('16kb'), {
    description:
      'Upload requests of at most this many bytes (their `Content-Length`) keep their files in the database, ' +
      "written in the same commit as the files' records: one fsync instead of three, on either datasource; `0` " +
      'stores every file in the datasource; see [storage](storage.md)',
  }),
  S3_ENDPOINT: env(z.string().url().optional(), {
    description: 'URL of an S3-compatible server, e.g. `https://s3.example.com` or `http://127.0.0.1:7480`',
    unset: 'AWS',
  }),
  S3_REGION: env(z.string().min(1).default('us-east-1'), {
    description: 'Region (most S3-compatible servers accept any)',
  }),
  S3_BUCKET: env(z.string().min(3, 'must be a bucket name of at least 3 characters').optional(), {
    description: 'Bucket, which must exist',
    unset: 'required with `DATASOURCE=s3`',
  }),
  S3_ACCESS_KEY_ID: env(z.string().min(1).optional(), {
    description: 'Access key; set it and `S3_SECRET_ACCESS_KEY` both or neither',
    unset: "the AWS SDK's default chain",
  }),
  S3_SECRET_ACCESS_KEY: env(z.string().min(1).optional(), {
    description: 'Secret key; set it and `S3_ACCESS_KEY_ID` both or neither',
    unset: "the AWS SDK's default chain",
  }),
  S3_FORCE_PATH_STYLE: env(booleanFromEnv.default(false), {
    description: '`true` for `endpoint/bucket/key` URLs (most self-hosted servers: MinIO, Ceph, Garage)',
  }),
  S3_PREFIX: env(
    z
      .string()
      .refine(
        (v) => !v.startsWith('/') && !v.split('/').some((s) => s === '.' || s === '..') && !v.includes('\\'),
        "must be a relative path without '.' or '..' segments, e.g. chute/",
      )
      .transform((v) => (v.endsWith('/') ? v : `${v}/`))
      .optional(),
    {
      description: "Key prefix of every object, e.g. `chute/` (to share a bucket; a '/' is added when missing)",
      unset: 'none',
    },
  ),
  S3_PART_SIZE: env(
    byteSizeFromEnv
      .refine((v) => v >= 5 * 1024 * 1024 && v <= 5 * 1024 ** 3, 'must be between 5 MiB and 5 GiB')
      .prefault('8mb'),
    {
      description:
        'Part size of multipart uploads, 5 MiB to 5 GiB; memory per upload is about 5 parts (measured: ' +
        '[bench/RESULTS.md](../bench/RESULTS.md)); the largest file is 10,000 parts (~78 GiB with `8mb`)',
    },
  ),
  // LDAP sign-in (src/services/directory, docs/ldap.md).
  LDAP_URL: env(
    z
      .string()
      .refine((v) => {
        try {
          const url = new URL(v);
          return (url.protocol === 'ldap:' || url.protocol === 'ldaps:') && url.hostname !== '' && url.pathname === '';
        } catch {
          return false;
        }
      }, 'must be ldap://host[:port] (StartTLS) or ldaps://host[:port], without a path')
      .optional(),
    {
      description:
        'The directory that signs people in with their directory password (Active Directory, OpenLDAP, FreeIPA, ' +
        'lldap, Authentik): `ldaps://ldap.example.com` (TLS), or `ldap://ldap.example.com` which upgrades with ' +
        'StartTLS before any password is sent (see `LDAP_STARTTLS`). The certificate is checked; see [ldap.md](ldap.md)',
      unset: 'no LDAP sign-in',
    },
  ),
  LDAP_STARTTLS: env(booleanFromEnv.default(true), {
    description:
      'With an `ldap://` URL, upgrade the connection with StartTLS (the certificate checked) before binding. `false` ' +
      'sends the passwords in clear: only for a directory on the same host or a network you trust',
  }),
  LDAP_TLS_CA: env(
    z
      .string()
      .refine((v) => {
        try {
          return readFileSync(v, 'utf8').includes('-----BEGIN CERTIFICATE-----');
        } catch {
          return false;
        }
      }, "must be the path of a readable PEM file with the certificate of the CA that signed the directory's")
      .optional(),
    {
      description: "A PEM file with the certificate authority that signed the directory's certificate (a private CA)",
      unset: "the system's trusted CAs",
    },
  ),
  LDAP_BIND_DN: env(z.string().min(1).optional(), {
    description:
      'The DN of the account Chute searches the directory with, e.g. `cn=chute,ou=services,dc=example,dc=com`',
    unset: 'an anonymous search',
  }),
  LDAP_BIND_PASSWORD: env(z.string().min(1).optional(), {
    description: 'The password of `LDAP_BIND_DN`',
    unset: 'required with `LDAP_BIND_DN`',
  }),
  LDAP_SEARCH_BASE: env(z.string().min(1).optional(), {
    description: 'Where the people are searched for (the whole subtree), e.g. `ou=people,dc=example,dc=com`',
    unset: 'required with `LDAP_URL`',
  }),
  LDAP_SEARCH_FILTER: env(
    z
      .string()
      .refine(
        (v) => v.startsWith('(') && v.endsWith(')') && v.includes('{username}'),
        'must be an LDAP filter in parentheses with {username} where the typed name goes, e.g. (uid={username})',
      )
      .default('(uid={username})'),
    {
      description:
        'The filter that finds the person by the name typed at sign-in; `{username}` is replaced by that name, ' +
        'escaped (RFC 4515). Active Directory: `(sAMAccountName={username})`; name or e-mail: ' +
        '`(|(uid={username})(mail={username}))`',
    },
  ),
  LDAP_ADMIN_GROUP: env(z.string().min(1).optional(), {
    description:
      'The DN of a group whose members become ADMIN at each sign-in, and whose former members become USER again ' +
      "(a SUPERADMIN keeps the role); membership is read from `memberOf` or the group's `member`, `uniqueMember` " +
      'or `memberUid`',
    unset: 'roles are not changed by the directory',
  }),
  LDAP_ALLOWED_GROUP: env(z.string().min(1).optional(), {
    description: 'The DN of a group: only its members may sign in through the directory',
    unset: 'every person the filter finds',
  }),
  LDAP_TIMEOUT: env(z.coerce.number().int().min(1).max(120).default(10), {
    description:
      'Seconds each step with the directory (connecting, binding, searching) may take before the sign-in fails',
  }),
};

/** The LDAP variables that make no sense without LDAP_URL, and those LDAP_URL needs. */
function checkLdap(env: z.output<z.ZodObject<typeof ENV_VARIABLES>>, ctx: z.RefinementCtx): void {
  if (env.LDAP_BIND_DN && !env.LDAP_BIND_PASSWORD) {
    ctx.addIssue({ code: 'custom', path: ['LDAP_BIND_PASSWORD'], message: 'is required with LDAP_BIND_DN' });
  }
  if (env.LDAP_BIND_PASSWORD && !env.LDAP_BIND_DN) {
    ctx.addIssue({ code: 'custom', path: ['LDAP_BIND_DN'], message: 'is required with LDAP_BIND_PASSWORD' });
  }
  if (!env.LDAP_URL) {
    for (const name of ['LDAP_BIND_DN', 'LDAP_SEARCH_BASE', 'LDAP_ADMIN_GROUP', 'LDAP_ALLOWED_GROUP'] as const) {
      if (env[name])
        ctx.addIssue({ code: 'custom', path: [name], message: 'has no effect without LDAP_URL: set it too' });
    }
    return;
  }
  if (!env.LDAP_SEARCH_BASE) {
    ctx.addIssue({ code: 'custom', path: ['LDAP_SEARCH_BASE'], message: 'is required with LDAP_URL' });
  }
}

const envSchema = z.object(ENV_VARIABLES).superRefine((env, ctx) => {
  checkLdap(env, ctx);
  if (env.SHUTDOWN_DRAIN_DELAY >= env.SHUTDOWN_TIMEOUT) {
    ctx.addIssue({
      code: 'custom',
      path: ['SHUTDOWN_DRAIN_DELAY'],
      message: `must be less than SHUTDOWN_TIMEOUT (${env.SHUTDOWN_TIMEOUT}): requests in progress need time to finish`,
    });
  }
  if (env.DATASOURCE !== 's3') return;
  if (!env.S3_BUCKET) ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when DATASOURCE=s3' });
  if (!env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY) {
    const missing = env.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID';
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: 'is required with the other S3 key (set both or neither)',
    });
  }
});

export type EnvConfig = z.output<typeof envSchema>;

export interface Config extends EnvConfig {
  /** The raw environment, kept so that settings can be overridden by CHUTE_* style variables (see services/settings). */
  env: Record<string, string | undefined>;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings are treated as "not set", which is what people mean by `FOO=` in an env file.
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '?');
        return `${name}=${JSON.stringify(cleaned[name] ?? '')}: ${issue.message}`;
      }),
    );
  }
  return { ...result.data, env };
}

/**
 * The environment a Chute process reads its configuration from: the process environment over the variables of a
 * `.env` file in the working folder (or the file `CHUTE_ENV_FILE` names), so that the server and the `chute` command
 * started in one folder see one configuration. A variable set in the environment wins over the file.
 */
export function environmentWithEnvFile(
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): Record<string, string | undefined> {
  const file = env.CHUTE_ENV_FILE ? path.resolve(cwd, env.CHUTE_ENV_FILE) : path.join(cwd, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !env.CHUTE_ENV_FILE) return env;
    throw new ConfigError([`CHUTE_ENV_FILE=${JSON.stringify(file)}: cannot be read (${code ?? String(err)})`]);
  }
  return { ...parseEnv(text), ...env };
}
