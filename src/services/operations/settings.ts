// Server settings: defaults, overridden by what an admin stored in the settings record, overridden in turn by
// environment variables (which lock the key). Readers get a synchronous snapshot, refreshed after every write, when
// another instance announces a write (db/postgres/change-feed.ts) and periodically, so that a change made on one instance
// reaches the others at once, and within the refresh interval should the announcement be lost.
import { z } from 'zod';
import { ApiError } from '../../lib/errors.js';
import { FILE_NAME_FORMATS, type FileNameFormat } from '../../lib/text/file-names.js';
import { parseByteSize } from '../../lib/text/sizes.js';
import { parseDuration } from '../../lib/text/durations.js';
import {
  PASSWORD_MIN_LENGTH_DEFAULT,
  PASSWORD_MIN_LENGTH_HIGHEST,
  PASSWORD_MIN_LENGTH_LOWEST,
} from '../../lib/security/password-rules.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../db/schema/tables.js';

const routePrefix = z
  .string()
  .regex(/^\/[a-zA-Z0-9._~-]+$/, 'must be a single path segment such as /u')
  .refine(
    (v) => !['/api', '/raw', '/view', '/assets', '/dashboard', '/auth', '/folder', '/s', '/metrics'].includes(v),
    {
      message: 'is reserved',
    },
  );

const durationOrNull = z
  .string()
  .nullable()
  .refine((v) => v === null || parseDuration(v) !== null, 'must be a duration such as 30m, 7d or 1y, or null');

const bytes = z.union([z.number().int().min(1), z.string()]).transform((v, ctx) => {
  const parsed = parseByteSize(v);
  if (parsed === null || parsed < 1) {
    ctx.addIssue({ code: 'custom', message: 'must be a byte size such as 104857600, 100mb or 1gb' });
    return z.NEVER;
  }
  return parsed;
});

/** A byte size between `min` and `max` (inclusive). */
function bytesBetween(min: number, max: number, hint: string) {
  return bytes.refine((v) => v >= min && v <= max, hint);
}

/** How an environment variable's text becomes the setting's input (bytes: a size such as 100mb, parsed by the schema). */
type EnvKind = 'boolean' | 'number' | 'string' | 'bytes' | 'list' | 'nullable-string';

interface SettingDefinition<S extends z.ZodType> {
  schema: S;
  default: z.output<S>;
  env: string;
  envKind: EnvKind;
  description: string;
}

function setting<S extends z.ZodType>(
  schema: S,
  defaultValue: z.output<S>,
  env: string,
  envKind: EnvKind,
  description: string,
): SettingDefinition<S> {
  return { schema, default: defaultValue, env, envKind, description };
}

const urlSetting = z.string().url().max(2048);
const appText = z.string().min(1).max(200).nullable();
const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a colour such as #1c7ed6');
const optionalText = z.string().min(1).max(2048).nullable();

/** The settings of one plain OAuth 2 provider: its client, and its three endpoints (the real ones by default). */
function oauthProviderSettings<N extends 'Discord' | 'Github' | 'Google'>(
  name: N,
  env: string,
  urls: { authorize: string; token: string; user: string },
  label: string = name,
) {
  return {
    [`oauth${name}ClientId`]: setting(
      optionalText,
      null as string | null,
      `OAUTH_${env}_CLIENT_ID`,
      'nullable-string',
      `${label} OAuth client id; with its secret, enables "Sign in with ${label}"`,
    ),
    [`oauth${name}ClientSecret`]: setting(
      optionalText,
      null as string | null,
      `OAUTH_${env}_CLIENT_SECRET`,
      'nullable-string',
      `${label} OAuth client secret`,
    ),
    [`oauth${name}AuthorizeUrl`]: setting(
      urlSetting,
      urls.authorize,
      `OAUTH_${env}_AUTHORIZE_URL`,
      'string',
      `${label}'s authorization endpoint`,
    ),
    [`oauth${name}TokenUrl`]: setting(
      urlSetting,
      urls.token,
      `OAUTH_${env}_TOKEN_URL`,
      'string',
      `${label}'s token endpoint`,
    ),
    [`oauth${name}UserUrl`]: setting(
      urlSetting,
      urls.user,
      `OAUTH_${env}_USER_URL`,
      'string',
      `${label}'s endpoint for the signed-in user's profile`,
    ),
  } as Record<`oauth${N}${'ClientId' | 'ClientSecret'}`, SettingDefinition<typeof optionalText>> &
    Record<`oauth${N}${'AuthorizeUrl' | 'TokenUrl' | 'UserUrl'}`, SettingDefinition<typeof urlSetting>>;
}

/** Sign-in through OAuth 2 and OpenID Connect providers (services/accounts/oauth.ts). */
const OAUTH_SETTINGS = {
  oauthRegistration: setting(
    z.boolean(),
    false,
    'OAUTH_REGISTRATION',
    'boolean',
    'A first sign-in through an OAuth provider creates an account (otherwise only linked accounts sign in)',
  ),
  oauthOidcIssuer: setting(
    urlSetting.nullable(),
    null as string | null,
    'OAUTH_OIDC_ISSUER',
    'nullable-string',
    'OpenID Connect issuer URL, read through its discovery document (Keycloak realm, Authentik application, Authelia ...)',
  ),
  oauthOidcClientId: setting(
    optionalText,
    null as string | null,
    'OAUTH_OIDC_CLIENT_ID',
    'nullable-string',
    'OpenID Connect client id',
  ),
  oauthOidcClientSecret: setting(
    optionalText,
    null as string | null,
    'OAUTH_OIDC_CLIENT_SECRET',
    'nullable-string',
    'OpenID Connect client secret',
  ),
  oauthOidcScopes: setting(
    z
      .string()
      .regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, 'must be scopes separated by single spaces')
      .refine((v) => v.split(' ').includes('openid'), 'must include openid'),
    'openid profile email',
    'OAUTH_OIDC_SCOPES',
    'string',
    'Scopes asked of the OpenID Connect provider, separated by spaces',
  ),
  oauthOidcGroupsClaim: setting(
    z
      .string()
      .max(256)
      .regex(/^[^\s]*$/, 'must be a claim name or a dotted path such as realm_access.roles, without spaces'),
    'groups',
    'OAUTH_OIDC_GROUPS_CLAIM',
    'string',
    "The OpenID Connect claim that holds the user's groups: a name (groups) or a dotted path (realm_access.roles), read from the ID token, else from the userinfo answer; used by oauthOidcAllowedGroups and oauthOidcAdminGroups",
  ),
  oauthOidcAllowedGroups: setting(
    z.array(z.string().min(1).max(256)).max(100, 'at most 100 groups'),
    [] as string[],
    'OAUTH_OIDC_ALLOWED_GROUPS',
    'list',
    'When set, only members of one of these groups (in oauthOidcGroupsClaim) may sign in or register through OpenID Connect; others are refused (3017). Comma separated in the environment',
  ),
  oauthOidcAdminGroups: setting(
    z.array(z.string().min(1).max(256)).max(100, 'at most 100 groups'),
    [] as string[],
    'OAUTH_OIDC_ADMIN_GROUPS',
    'list',
    'When set, members of one of these groups become ADMIN at their OpenID Connect sign-in, and an ADMIN who is in none of them becomes USER again (a SUPERADMIN keeps the role). Comma separated in the environment',
  ),
  ...oauthProviderSettings('Discord', 'DISCORD', {
    authorize: 'https://discord.com/oauth2/authorize',
    token: 'https://discord.com/api/oauth2/token',
    user: 'https://discord.com/api/users/@me',
  }),
  ...oauthProviderSettings(
    'Github',
    'GITHUB',
    {
      authorize: 'https://github.com/login/oauth/authorize',
      token: 'https://github.com/login/oauth/access_token',
      user: 'https://api.github.com/user',
    },
    'GitHub',
  ),
  ...oauthProviderSettings('Google', 'GOOGLE', {
    authorize: 'https://accounts.google.com/o/oauth2/v2/auth',
    token: 'https://oauth2.googleapis.com/token',
    user: 'https://openidconnect.googleapis.com/v1/userinfo',
  }),
};

/** An http:// or https:// URL (webhook targets: no other scheme is ever asked). */
const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');

/** Outgoing webhooks on uploads and short URLs (services/operations/webhooks.ts). */
const WEBHOOK_SETTINGS = {
  webhookUrls: setting(
    z.array(httpUrl).max(20, 'at most 20 URLs'),
    [] as string[],
    'WEBHOOK_URLS',
    'list',
    'URLs that receive a signed JSON POST on each upload and shortened URL (comma separated in the environment)',
  ),
  webhookSecret: setting(
    z.string().min(16, 'must be at least 16 characters').max(256).nullable(),
    null as string | null,
    'WEBHOOK_SECRET',
    'nullable-string',
    'Key of the x-chute-signature header (HMAC-SHA256) on webhook deliveries; shown in full to the SUPERADMIN only. Without it, deliveries go unsigned',
  ),
  webhookOnUpload: setting(
    z.boolean(),
    true,
    'WEBHOOK_ON_UPLOAD',
    'boolean',
    'Webhooks (and the Discord webhook) are sent for each uploaded file (single and chunked)',
  ),
  webhookOnShorten: setting(
    z.boolean(),
    true,
    'WEBHOOK_ON_SHORTEN',
    'boolean',
    'Webhooks (and the Discord webhook) are sent for each shortened URL',
  ),
  discordWebhookUrl: setting(
    httpUrl.nullable(),
    null as string | null,
    'DISCORD_WEBHOOK_URL',
    'nullable-string',
    'A Discord webhook URL that gets an embed (link and thumbnail) for each upload and shortened URL; shown in full to the SUPERADMIN only',
  ),
};

/** Shortest and longest metricsInterval. */
export const METRICS_INTERVAL_MIN_MS = 60_000;
export const METRICS_INTERVAL_MAX_MS = 7 * 86_400_000;

/** Statistics snapshots (GET /api/stats) and the Prometheus endpoint (/metrics). */
const METRICS_SETTINGS = {
  metricsEnabled: setting(
    z.boolean(),
    true,
    'METRICS_ENABLED',
    'boolean',
    'Keep a snapshot of the instance statistics every metricsInterval, answered by GET /api/stats and drawn on the admin overview; off: no snapshots, and GET /api/stats answers 3001',
  ),
  metricsAdminOnly: setting(
    z.boolean(),
    false,
    'METRICS_ADMIN_ONLY',
    'boolean',
    'Only admins may read GET /api/stats (other users get 3000)',
  ),
  metricsInterval: setting(
    z.string().refine((v) => {
      const ms = parseDuration(v);
      return ms !== null && ms >= METRICS_INTERVAL_MIN_MS && ms <= METRICS_INTERVAL_MAX_MS;
    }, 'must be a duration between 1m and 7d, such as 30m or 1h'),
    '30m',
    'METRICS_INTERVAL',
    'string',
    'How often a statistics snapshot is kept (a duration between 1m and 7d); one instance takes each one',
  ),
  metricsToken: setting(
    z
      .string()
      .min(16, 'must be at least 16 characters')
      .max(256)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .nullable(),
    null as string | null,
    'METRICS_TOKEN',
    'nullable-string',
    'Bearer token that Prometheus sends to scrape /metrics (Authorization: Bearer <token>); null: /metrics is off (404)',
  ),
};

/** Every server setting: its validation, default, environment variable and meaning. */
export const SETTING_DEFINITIONS = {
  siteTitle: setting(z.string().min(1).max(100), 'Chute', 'SITE_TITLE', 'string', 'Name shown on pages and embeds'),
  siteRobotsTxt: setting(
    z.boolean(),
    false,
    'ROBOTS_TXT',
    'boolean',
    'Serve /robots.txt asking every crawler to stay away (User-Agent: * / Disallow: /, as Zipline); off: 404',
  ),
  sitePwaEnabled: setting(
    z.boolean(),
    false,
    'PWA_ENABLED',
    'boolean',
    'Serve the web manifest /manifest.json, so that browsers offer to install the site as an app; off: 404',
  ),
  sitePwaTitle: setting(
    appText,
    null as string | null,
    'PWA_TITLE',
    'nullable-string',
    "The app's name in the web manifest; null: the site title",
  ),
  sitePwaShortName: setting(
    appText,
    null as string | null,
    'PWA_SHORT_NAME',
    'nullable-string',
    "The app's short name (under its icon); null: the site title",
  ),
  sitePwaDescription: setting(
    appText,
    null as string | null,
    'PWA_DESCRIPTION',
    'nullable-string',
    "The app's description in the web manifest; null: the site title",
  ),
  sitePwaThemeColor: setting(hexColor, '#000000', 'PWA_THEME_COLOR', 'string', "The app's theme colour (#rrggbb)"),
  sitePwaBackgroundColor: setting(
    hexColor,
    '#000000',
    'PWA_BACKGROUND_COLOR',
    'string',
    "The app's background colour while it starts (#rrggbb)",
  ),
  registrationEnabled: setting(z.boolean(), false, 'REGISTRATION_ENABLED', 'boolean', 'Anyone may register'),
  invitesEnabled: setting(z.boolean(), false, 'INVITES_ENABLED', 'boolean', 'Registration with an invite code'),
  passwordMinLength: setting(
    z
      .number()
      .int()
      .min(PASSWORD_MIN_LENGTH_LOWEST, `must be at least ${PASSWORD_MIN_LENGTH_LOWEST}`)
      .max(PASSWORD_MIN_LENGTH_HIGHEST, `must be at most ${PASSWORD_MIN_LENGTH_HIGHEST}`),
    PASSWORD_MIN_LENGTH_DEFAULT,
    'PASSWORD_MIN_LENGTH',
    'number',
    `Shortest new password, in characters (${PASSWORD_MIN_LENGTH_LOWEST} to ${PASSWORD_MIN_LENGTH_HIGHEST}), for setup, registration, password changes and the chute user commands; existing passwords keep working`,
  ),
  invitesCodeLength: setting(
    z.number().int().min(4).max(64),
    8,
    'INVITES_CODE_LENGTH',
    'number',
    'Length of invite codes',
  ),
  filesNameLength: setting(
    z.number().int().min(4).max(64),
    8,
    'FILES_NAME_LENGTH',
    'number',
    'Length of random file names',
  ),
  filesDefaultFormat: setting(
    z.enum(FILE_NAME_FORMATS),
    'random' as FileNameFormat,
    'FILES_DEFAULT_FORMAT',
    'string',
    'Name format when an upload does not choose one',
  ),
  filesMaxFileSize: setting(
    bytes,
    1024 ** 3,
    'FILES_MAX_FILE_SIZE',
    'bytes',
    'Largest file accepted, in bytes (or 100mb, 2gb ...)',
  ),
  filesDefaultExpiration: setting(
    durationOrNull,
    null as string | null,
    'FILES_DEFAULT_EXPIRATION',
    'nullable-string',
    'Expiry applied when an upload does not set one (e.g. 30d); null keeps files forever',
  ),
  filesDisabledExtensions: setting(
    z
      .array(
        z
          .string()
          .regex(/^\.?[a-zA-Z0-9]+$/)
          .transform((e) => e.replace(/^\./, '').toLowerCase()),
      )
      .max(500),
    [] as string[],
    'FILES_DISABLED_EXTENSIONS',
    'list',
    'Extensions refused on upload (comma separated in the environment)',
  ),
  uploadsPrivateByDefault: setting(
    z.boolean(),
    false,
    'UPLOADS_PRIVATE_BY_DEFAULT',
    'boolean',
    'Uploads without an x-service-private header are private: served only to their owner and through share links',
  ),
  filesRemoveGpsMetadata: setting(
    z.boolean(),
    false,
    'FILES_REMOVE_GPS_METADATA',
    'boolean',
    'Uploaded images (JPEG, PNG, WebP, TIFF, AVIF, HEIF) are stored without their metadata: EXIF GPS position, camera, times (an upload may ask for it with x-service-remove-gps: true)',
  ),
  filesRefuseEmpty: setting(
    z.boolean(),
    false,
    'FILES_REFUSE_EMPTY',
    'boolean',
    'Uploads of 0 bytes are refused (400, code 9000); off: they are stored, and the answer warns "empty file: it has 0 bytes"',
  ),
  filesKeepOriginalName: setting(
    z.boolean(),
    true,
    'FILES_KEEP_ORIGINAL_NAME',
    'boolean',
    "Uploads without an x-service-original-name header keep the client's file name as their originalName (shown in the dashboard and given to downloads); the dashboard's upload page and uploader configurations start from this too",
  ),
  filesExtensionlessUrls: setting(
    z.boolean(),
    false,
    'FILES_EXTENSIONLESS_URLS',
    'boolean',
    'Uploads are handed links without the file extension (/u/abc serves abc.png; an upload may choose with x-service-extensionless: true or false); the file keeps its name, and its link with the extension works too',
  ),
  thumbnailsEnabled: setting(
    z.boolean(),
    true,
    'THUMBNAILS_ENABLED',
    'boolean',
    'Make a small WebP thumbnail of every uploaded image and video in the background (videos need ffmpeg); off: none are made and POST /api/server/thumbnails answers 4011',
  ),
  filesRoute: setting(routePrefix, '/u', 'FILES_ROUTE', 'string', 'Path prefix of share links for files'),
  urlsRoute: setting(routePrefix, '/go', 'URLS_ROUTE', 'string', 'Path prefix of short URL redirects'),
  urlsLength: setting(z.number().int().min(3).max(64), 6, 'URLS_LENGTH', 'number', 'Length of short URL codes'),
  chunksEnabled: setting(
    z.boolean(),
    true,
    'CHUNKS_ENABLED',
    'boolean',
    'The dashboard uploads large files in chunks (POST /api/upload/partial)',
  ),
  chunksThreshold: setting(
    bytes,
    95 * 1024 ** 2,
    'CHUNKS_THRESHOLD',
    'bytes',
    'Files larger than this are uploaded in chunks by the dashboard, in bytes (or 95mb ...)',
  ),
  chunksSize: setting(
    bytesBetween(64 * 1024, 1024 ** 3, 'must be between 64 KiB and 1 GiB'),
    25 * 1024 ** 2,
    'CHUNKS_SIZE',
    'bytes',
    'Size of each chunk the dashboard sends, in bytes (or 25mb ...); keep it under the request size limit of any proxy in front of Chute',
  ),
  ratelimitEnabled: setting(z.boolean(), true, 'RATELIMIT_ENABLED', 'boolean', 'Limit uploads and logins per client'),
  ratelimitMax: setting(
    z.number().int().min(1).max(1_000_000),
    60,
    'RATELIMIT_MAX',
    'number',
    'Requests allowed per window',
  ),
  ratelimitWindow: setting(z.number().int().min(1).max(86_400), 60, 'RATELIMIT_WINDOW', 'number', 'Window in seconds'),
  ratelimitAdminBypass: setting(z.boolean(), true, 'RATELIMIT_ADMIN_BYPASS', 'boolean', 'Admins are not rate limited'),
  ...OAUTH_SETTINGS,
  ...WEBHOOK_SETTINGS,
  featuresVersionChecking: setting(
    z.boolean(),
    false,
    'FEATURES_VERSION_CHECKING',
    'boolean',
    'GET /api/version also asks the release feed (VERSION_CHECK_URL) for the latest version; off by default, as the server may have no internet. A failed check answers 6001',
  ),
  mfaTotpEnabled: setting(
    z.boolean(),
    true,
    'MFA_TOTP_ENABLED',
    'boolean',
    'Users may turn on TOTP codes (authenticator apps) as a second step of their password login; off answers 1054 on /api/user/mfa/totp, and accounts that already have TOTP keep being asked for their code',
  ),
  mfaPasskeys: setting(
    z.boolean(),
    true,
    'MFA_PASSKEYS',
    'boolean',
    'Users may register passkeys (WebAuthn) and sign in with them; off turns every passkey route and passkey login off',
  ),
  ...METRICS_SETTINGS,
} as const;

type Definitions = typeof SETTING_DEFINITIONS;
export type SettingKey = keyof Definitions;
export type Settings = { [K in SettingKey]: z.output<Definitions[K]['schema']> };
export const SETTING_KEYS = Object.keys(SETTING_DEFINITIONS) as SettingKey[];

/** Settings that are credentials: answered in full to the SUPERADMIN only, as SECRET_MASK to other admins. */
export const SECRET_SETTING_KEYS: readonly SettingKey[] = ['webhookSecret', 'discordWebhookUrl'];
/** What an ADMIN reads instead of a secret that is set; sent back unchanged in a PATCH, it keeps the stored value. */
export const SECRET_MASK = '********';

/** The settings as `role` may read them: secrets masked for anyone but the SUPERADMIN. */
export function settingsAsSeenBy(settings: Settings, role: 'USER' | 'ADMIN' | 'SUPERADMIN'): Settings {
  if (role === 'SUPERADMIN') return settings;
  const masked: Record<string, unknown> = { ...settings };
  for (const key of SECRET_SETTING_KEYS) if (masked[key] !== null) masked[key] = SECRET_MASK;
  return masked as Settings;
}

function defaults(): Settings {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, SETTING_DEFINITIONS[k].default])) as Settings;
}

function envValue(kind: EnvKind, raw: string): unknown {
  switch (kind) {
    case 'boolean':
      return ['true', '1', 'yes'].includes(raw.toLowerCase())
        ? true
        : ['false', '0', 'no'].includes(raw.toLowerCase())
          ? false
          : raw;
    case 'number':
      return /^-?\d+$/.test(raw) ? Number(raw) : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'nullable-string':
      return raw === 'never' || raw === 'null' ? null : raw;
    default:
      return raw;
  }
}

/** Settings fixed by environment variables, validated at start-up (a bad value stops the server with its name). */
export function settingsFromEnv(env: Record<string, string | undefined>): Partial<Settings> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of SETTING_KEYS) {
    const def = SETTING_DEFINITIONS[key];
    const raw = env[def.env];
    if (raw === undefined || raw === '') continue;
    const parsed = def.schema.safeParse(envValue(def.envKind, raw));
    if (parsed.success) out[key] = parsed.data;
    else problems.push(`${def.env}=${JSON.stringify(raw)}: ${parsed.error.issues.map((i) => i.message).join(', ')}`);
  }
  if (problems.length > 0) throw new Error(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return out as Partial<Settings>;
}

export class SettingsService {
  private snapshot: Settings;
  private stored: Partial<Settings> = {};
  /** Called after a stored change: tells the other instances (server.ts publishes it on the change feed). */
  afterUpdate: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly locked: Partial<Settings>,
  ) {
    this.snapshot = { ...defaults(), ...locked };
  }

  /** The current settings (synchronous: safe on hot paths). */
  get(): Settings {
    return this.snapshot;
  }

  /** Keys whose value comes from the environment and cannot be changed through the API. */
  lockedKeys(): SettingKey[] {
    return Object.keys(this.locked) as SettingKey[];
  }

  /** Reloads the stored record (missing record -> 4010). */
  async refresh(): Promise<Settings> {
    const row = await this.db.selectFrom('settings').select('data').where('id', '=', 1).executeTakeFirst();
    if (!row) throw new ApiError(4010);
    this.stored = this.parseStored(row.data);
    this.snapshot = { ...defaults(), ...this.stored, ...this.locked };
    return this.snapshot;
  }

  /** Validates and stores a partial update; unknown keys, bad values and env-locked keys -> 1022. */
  async update(patch: Record<string, unknown>): Promise<Settings> {
    const problems: string[] = [];
    const accepted: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(patch)) {
      if (!(key in SETTING_DEFINITIONS)) {
        problems.push(`${key}: unknown setting`);
        continue;
      }
      const k = key as SettingKey;
      // A masked secret read by an ADMIN and sent back as it was: the stored value stays.
      if (value === SECRET_MASK && SECRET_SETTING_KEYS.includes(k)) continue;
      if (k in this.locked) {
        problems.push(`${key}: set by the environment variable ${SETTING_DEFINITIONS[k].env}`);
        continue;
      }
      const parsed = SETTING_DEFINITIONS[k].schema.safeParse(value);
      if (parsed.success) accepted[key] = parsed.data;
      else problems.push(`${key}: ${parsed.error.issues.map((i) => i.message).join(', ')}`);
    }
    if (problems.length > 0) {
      throw new ApiError(1022, problems.join('; '), { extra: { issues: problems } });
    }
    await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('settings').select('data').where('id', '=', 1).executeTakeFirst();
      if (!row) throw new ApiError(4010);
      const merged = { ...this.parseStored(row.data), ...accepted };
      await trx
        .updateTable('settings')
        .set({ data: JSON.stringify(merged), updated_at: this.clock.now() })
        .where('id', '=', 1)
        .execute();
    });
    const settings = await this.refresh();
    // The others still refresh periodically, should the notice be lost.
    await this.afterUpdate?.().catch(() => undefined);
    return settings;
  }

  private parseStored(data: string): Partial<Settings> {
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return {};
    }
    const out: Record<string, unknown> = {};
    for (const key of SETTING_KEYS) {
      if (!(key in raw)) continue;
      const parsed = SETTING_DEFINITIONS[key].schema.safeParse(raw[key]);
      if (parsed.success) out[key] = parsed.data;
    }
    return out as Partial<Settings>;
  }
}

// --- The other writes of the settings record (this module is its one writer) -----------------------------------------

/**
 * Leaves first-time setup only while the instance is in it: of several concurrent setups exactly one wins (the result
 * says whether this one did).
 */
export async function claimFirstSetup(db: Db, now: number): Promise<boolean> {
  const claimed = await db
    .updateTable('settings')
    .set({ first_setup: 0, updated_at: now })
    .where('id', '=', 1)
    .where('first_setup', '=', 1)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Leaves first-time setup, whether or not it was still on (an operator made a SUPERADMIN). */
export async function endFirstSetup(db: Db, now: number): Promise<void> {
  await db.updateTable('settings').set({ first_setup: 0, updated_at: now }).where('id', '=', 1).execute();
}

/** Stores an import's settings values over the stored ones (checked by the import), in its transaction. */
export async function storeImportedSettings(db: Db, settings: Record<string, unknown>, now: number): Promise<void> {
  const row = await db.selectFrom('settings').select('data').where('id', '=', 1).executeTakeFirst();
  if (!row) throw new ApiError(4010);
  let stored: Record<string, unknown> = {};
  try {
    stored = JSON.parse(row.data) as Record<string, unknown>;
  } catch {
    // replaced below
  }
  await db
    .updateTable('settings')
    .set({ data: JSON.stringify({ ...stored, ...settings }), updated_at: now })
    .where('id', '=', 1)
    .execute();
}
