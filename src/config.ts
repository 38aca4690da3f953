// Reads the environment into one typed, validated configuration object.
// Every bad value is reported with its variable name; nothing else in the code reads process.env.
import { z } from 'zod';
import { parseByteSize } from './lib/sizes.js';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const byteSizeFromEnv = z.string().transform((value, ctx) => {
  const bytes = parseByteSize(value);
  if (bytes === null) {
    ctx.addIssue({ code: 'custom', message: 'expected a size such as 104857600, 100mb or 1gb' });
    return z.NEVER;
  }
  return bytes;
});

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL')
      .optional(),
    SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /**
     * Names this instance among several sharing a database; default: an id generated once and kept in DATA_DIR. Only
     * instances that share one DATA_DIR need to set it (each its own).
     */
    INSTANCE_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -')
      .optional(),
    /** Trust X-Forwarded-* headers (set when running behind a reverse proxy). */
    TRUST_PROXY: booleanFromEnv.default(false),
    /** Public base URL used in returned links, e.g. https://files.example.com. Derived from the request when unset. */
    PUBLIC_URL: z.string().url().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Largest JSON body accepted by API routes (uploads are limited separately). */
    JSON_BODY_LIMIT: byteSizeFromEnv.default(2 * 1024 * 1024),
    /** Redis URL for shared rate-limit counters when several instances run behind a load balancer. */
    REDIS_URL: z.string().url().optional(),
    /** Prefix of every Redis key Chute writes (to share one Redis between applications). */
    REDIS_PREFIX: z.string().min(1).default('chute:'),
    /** Folder of the built dashboard (index.html and assets/); default web/dist in the installation. */
    DASHBOARD_DIR: z.string().min(1).optional(),
    // Storage (src/storage): where uploaded bytes live.
    DATASOURCE: z.enum(['local', 's3']).default('local'),
    /** Folder of the local datasource; default DATA_DIR/uploads. */
    UPLOADS_DIR: z.string().min(1).optional(),
    /** Acknowledge an upload only once its bytes are fsynced (local). Off is faster but a crash may lose recent files. */
    UPLOADS_FSYNC: booleanFromEnv.default(true),
    S3_ENDPOINT: z.string().url().optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_BUCKET: z.string().min(3, 'must be a bucket name of at least 3 characters').optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: booleanFromEnv.default(false),
    /** Prefix of every object key in the bucket, e.g. chute/ (a '/' is added when missing). */
    S3_PREFIX: z
      .string()
      .refine(
        (v) => !v.startsWith('/') && !v.split('/').some((s) => s === '.' || s === '..') && !v.includes('\\'),
        "must be a relative path without '.' or '..' segments, e.g. chute/",
      )
      .transform((v) => (v.endsWith('/') ? v : `${v}/`))
      .optional(),
    /** Size of each part of an S3 multipart upload (at least 5mb); memory per upload is about S3_PART_SIZE x 5. */
    S3_PART_SIZE: byteSizeFromEnv
      .refine((v) => v >= 5 * 1024 * 1024 && v <= 5 * 1024 ** 3, 'must be between 5mb and 5gb')
      .default(8 * 1024 * 1024),
  })
  .superRefine((env, ctx) => {
    if (env.DATASOURCE !== 's3') return;
    if (!env.S3_BUCKET)
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when DATASOURCE=s3' });
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
