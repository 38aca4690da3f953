// How the server settings page shows each key of GET /api/server/settings: its group (by key prefix, so that a key
// added to SETTING_DEFINITIONS shows up without a change here), a label, and the input that fits its value.
import { formatBytes } from '../../lib/format';
import { parseSize, sizeText } from '../../lib/sizes';
import { HELP } from './settings-help';
import type { SettingValue } from './admin-api';

export interface SettingGroup {
  id: string;
  title: string;
  description?: string;
  keys: string[];
}

/** Known groups in page order; a key whose prefix is none of these gets a group named after its prefix. */
const KNOWN_GROUPS: Array<{ id: string; title: string; description: string; prefixes: string[] }> = [
  { id: 'general', title: 'General', description: 'How the server presents itself.', prefixes: ['site'] },
  {
    id: 'registration',
    title: 'Registration and invites',
    description: 'Who may create an account without an administrator.',
    prefixes: ['registration', 'invites'],
  },
  {
    id: 'files',
    title: 'Files',
    description: 'Uploads: names, sizes, types, expiry and privacy.',
    prefixes: ['files', 'uploads', 'thumbnails'],
  },
  {
    id: 'chunks',
    title: 'Chunked uploads',
    description: 'Large files go up from the dashboard in pieces.',
    prefixes: ['chunks'],
  },
  { id: 'urls', title: 'Short URLs', description: 'Links and short URL codes.', prefixes: ['urls'] },
  { id: 'ratelimit', title: 'Rate limits', description: 'Requests each client may make.', prefixes: ['ratelimit'] },
  {
    id: 'oauth',
    title: 'Sign-in providers',
    description:
      'Sign in with Discord, GitHub, Google or any OpenID Connect provider (Keycloak, Authentik, Authelia). A provider ' +
      'with a client id and secret gets a button on the sign-in page. Register <this server>/api/auth/oauth/<provider> ' +
      '(discord, github, google or oidc) as the redirect URI at the provider.',
    prefixes: ['oauth'],
  },
  {
    id: 'webhooks',
    title: 'Webhooks',
    description:
      'Tell other programs about each upload and short URL: a JSON POST signed with the secret (x-chute-signature), ' +
      'and a message to a Discord channel. Failed deliveries are retried and listed among the background jobs.',
    prefixes: ['webhook', 'discord'],
  },
  {
    id: 'features',
    title: 'Updates',
    description: 'Whether the overview tells administrators about a newer release (asks the release feed).',
    prefixes: ['features'],
  },
  {
    id: 'mfa',
    title: 'Sign-in security',
    description:
      'How long new passwords must be, and the second steps and passwordless sign-in users may turn on for their ' +
      'accounts.',
    prefixes: ['password', 'mfa'],
  },
  {
    id: 'metrics',
    title: 'Statistics and metrics',
    description:
      "Snapshots of the server's statistics for the overview's charts (GET /api/stats), and the Prometheus endpoint " +
      '/metrics, which answers only scrapes that send its token (Authorization: Bearer <token>).',
    prefixes: ['metrics'],
  },
];

/** Labels for the keys Chute has today; other keys are labelled from their name. */
export const LABELS: Record<string, string> = {
  siteTitle: 'Site title',
  siteRobotsTxt: 'Ask search engines to stay away (robots.txt)',
  sitePwaEnabled: 'Installable as an app (web manifest)',
  sitePwaTitle: 'App name',
  sitePwaShortName: 'App short name',
  sitePwaDescription: 'App description',
  sitePwaThemeColor: 'App theme colour',
  sitePwaBackgroundColor: 'App background colour',
  registrationEnabled: 'Open registration',
  invitesEnabled: 'Invites',
  invitesCodeLength: 'Invite code length',
  passwordMinLength: 'Shortest password (characters)',
  filesNameLength: 'Random name length',
  filesDefaultFormat: 'Default name format',
  filesMaxFileSize: 'Largest file',
  filesDefaultExpiration: 'Default expiry',
  filesDisabledExtensions: 'Refused extensions',
  filesRoute: 'File link prefix',
  uploadsPrivateByDefault: 'New uploads are private (shared only through share links)',
  filesRemoveGpsMetadata: 'Remove GPS data from photos',
  filesKeepOriginalName: 'Keep the original file name of uploads',
  filesRefuseEmpty: 'Refuse empty files (0 bytes)',
  filesExtensionlessUrls: 'Links without the file extension',
  thumbnailsEnabled: 'Make thumbnails of images and videos',
  urlsRoute: 'Short URL prefix',
  urlsLength: 'Short URL code length',
  chunksEnabled: 'Upload large files in chunks',
  chunksThreshold: 'Chunk above',
  chunksSize: 'Chunk size',
  ratelimitEnabled: 'Rate limiting',
  ratelimitMax: 'Requests per window',
  ratelimitWindow: 'Window (seconds)',
  ratelimitAdminBypass: 'Administrators are not limited',
  oauthRegistration: 'A first sign-in through a provider creates an account',
  oauthOidcIssuer: 'OpenID Connect issuer URL',
  oauthOidcClientId: 'OpenID Connect client id',
  oauthOidcClientSecret: 'OpenID Connect client secret',
  oauthOidcScopes: 'OpenID Connect scopes',
  oauthOidcGroupsClaim: 'OpenID Connect groups claim',
  oauthOidcAllowedGroups: 'Groups that may sign in (empty: everyone)',
  oauthOidcAdminGroups: 'Groups whose members are administrators',
  ...providerLabels('Discord'),
  ...providerLabels('Github', 'GitHub'),
  ...providerLabels('Google'),
  webhookUrls: 'Webhook URLs',
  webhookSecret: 'Signing secret',
  webhookOnUpload: 'Send on each upload',
  webhookOnShorten: 'Send on each short URL',
  discordWebhookUrl: 'Discord webhook URL',
  featuresVersionChecking: 'Check for updates',
  mfaTotpEnabled: 'Authenticator apps (TOTP codes)',
  mfaPasskeys: 'Passkeys',
  metricsEnabled: 'Keep statistics snapshots',
  metricsAdminOnly: 'Only administrators see the statistics',
  metricsInterval: 'Snapshot every',
  metricsToken: 'Prometheus token (empty: /metrics is off)',
};

function providerLabels(key: string, name = key): Record<string, string> {
  return {
    [`oauth${key}ClientId`]: `${name} client id`,
    [`oauth${key}ClientSecret`]: `${name} client secret`,
    [`oauth${key}AuthorizeUrl`]: `${name} authorization URL`,
    [`oauth${key}TokenUrl`]: `${name} token URL`,
    [`oauth${key}UserUrl`]: `${name} user URL`,
  };
}

/** Choices of keys whose value is one of a fixed list (the API answers only the current value). */
export const CHOICES: Record<string, Array<{ value: string; label: string }>> = {
  filesDefaultFormat: [
    { value: 'random', label: 'Random characters' },
    { value: 'uuid', label: 'UUID' },
    { value: 'date', label: 'Date and time' },
    { value: 'name', label: 'Original name' },
    { value: 'random-words', label: 'Random words' },
  ],
};

export function prefixOf(key: string): string {
  return /^[a-z]+/.exec(key)?.[0] ?? key;
}

function humanize(text: string): string {
  const words = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function labelOf(key: string): string {
  return LABELS[key] ?? humanize(key);
}

/** The admin's help text for a key: ours, else the server's description. */
export function helpOf(key: string, serverDescription: string): string {
  const text = HELP[key] ?? serverDescription;
  return /[.!?]$/.test(text) || text === '' ? text : `${text}.`;
}

/** A key's default value in words, as its input would show it. */
export function defaultText(key: string, kind: SettingKind, value: SettingValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (value === null || value === '') return 'not set';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (kind === 'size' && typeof value === 'number') return formatBytes(value);
  const choice = CHOICES[key]?.find((c) => c.value === value);
  return choice ? choice.label.toLowerCase() : String(value);
}

/**
 * Whether a key matches what was typed in the page's search box: every word of it, in the label, the help, the
 * technical description, the key or its environment variable, case and accents aside.
 */
export function matchesSearch(
  query: string,
  key: string,
  field: { description?: string; env?: string } | undefined,
): boolean {
  const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = fold([labelOf(key), HELP[key] ?? '', field?.description ?? '', key, field?.env ?? ''].join(' '));
  return words.every((word) => haystack.includes(word));
}

/** The keys in groups, in the server's key order within each group. */
export function groupSettings(keys: string[]): SettingGroup[] {
  const groups = KNOWN_GROUPS.map(({ id, title, description }) => ({ id, title, description, keys: [] as string[] }));
  const extra = new Map<string, SettingGroup>();
  for (const key of keys) {
    const prefix = prefixOf(key);
    const known = KNOWN_GROUPS.findIndex((g) => g.prefixes.includes(prefix));
    if (known >= 0) {
      groups[known]!.keys.push(key);
      continue;
    }
    let group = extra.get(prefix);
    if (!group) {
      group = { id: prefix, title: humanize(prefix), keys: [] };
      extra.set(prefix, group);
    }
    group.keys.push(key);
  }
  return [...groups, ...extra.values()].filter((g) => g.keys.length > 0);
}

export type SettingKind = 'switch' | 'number' | 'size' | 'list' | 'choice' | 'optional-text' | 'text';

/** The input for a key, from its current value and its description (sizes say "bytes", optional values "null"). */
export function kindOf(key: string, value: SettingValue, description: string): SettingKind {
  if (typeof value === 'boolean') return 'switch';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return /\bbytes\b/i.test(description) ? 'size' : 'number';
  if (CHOICES[key]) return 'choice';
  if (value === null || /\bnull\b/.test(description)) return 'optional-text';
  return 'text';
}

/** What the form holds while editing: sizes as typed text, numbers possibly empty. */
export type Draft = boolean | number | '' | string | string[];

export function toDraft(kind: SettingKind, value: SettingValue): Draft {
  switch (kind) {
    case 'size':
      return typeof value === 'number' ? sizeText(value) : String(value ?? '');
    case 'optional-text':
    case 'text':
    case 'choice':
      return value === null ? '' : String(value);
    case 'list':
      return Array.isArray(value) ? value : [];
    default:
      return value as boolean | number;
  }
}

/** The value to send, or a problem the page can name before asking the server. */
export function fromDraft(kind: SettingKind, draft: Draft): { value: SettingValue } | { problem: string } {
  switch (kind) {
    case 'size': {
      const text = String(draft).trim();
      if (parseSize(text) === null) return { problem: 'Write a size such as 100mb, 2gb or a number of bytes.' };
      return { value: /^\d+$/.test(text) ? Number(text) : text };
    }
    case 'number':
      return draft === '' ? { problem: 'Enter a number.' } : { value: Number(draft) };
    case 'optional-text':
      return { value: String(draft).trim() === '' ? null : String(draft).trim() };
    case 'text':
    case 'choice':
      return { value: String(draft) };
    default:
      return { value: draft as SettingValue };
  }
}

export function sameDraft(a: Draft | undefined, b: Draft | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
