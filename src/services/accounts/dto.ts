// The accounts' shapes of the API (users, sessions, quotas, sign-in providers, passkeys, API tokens), one function per
// shape turning database rows into them.
import type {
  ApiTokenRow,
  OAuthProviderRow,
  PasskeyRow,
  QuotaRow,
  SessionRow,
  UserRow,
} from '../../db/schema/tables.js';
import { parseScopes, type TokenScope } from '../../lib/security/token-scopes.js';
import { toIso } from '../../lib/clock.js';
import type { PasskeySummaryDto } from '../../schemas/passkey.js';
import type { OAuthProviderDto, QuotaDto, SessionDto, UserDto, UserViewSettings } from '../../schemas/user.js';

export function parseView(json: string): UserViewSettings {
  try {
    const value = JSON.parse(json) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as UserViewSettings) : {};
  } catch {
    return {};
  }
}

export function toSessionDto(row: SessionRow): SessionDto {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    ua: row.ua,
    client: row.client,
    device: row.device,
    userId: row.user_id,
  };
}

export function toQuotaDto(row: QuotaRow): QuotaDto {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    filesQuota: row.files_quota,
    maxBytes: row.max_bytes === null ? null : String(row.max_bytes),
    maxFiles: row.max_files,
    maxUrls: row.max_urls,
    userId: row.user_id,
  };
}

export function toOAuthProviderDto(p: OAuthProviderRow): OAuthProviderDto {
  return {
    id: p.id,
    createdAt: toIso(p.created_at),
    updatedAt: toIso(p.updated_at),
    userId: p.user_id,
    provider: p.provider,
    username: p.username,
    oauthId: p.oauth_id,
  };
}

export interface UserRelations {
  sessions: SessionRow[];
  oauthProviders: OAuthProviderRow[];
  passkeys: PasskeyRow[];
  quota: QuotaRow | undefined;
}

export function toUserDto(row: UserRow, rel: UserRelations): UserDto {
  return {
    id: row.id,
    username: row.username,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    role: row.role,
    view: parseView(row.view),
    sessions: rel.sessions.map(toSessionDto),
    oauthProviders: rel.oauthProviders.map(toOAuthProviderDto),
    totpEnabled: row.totp_secret !== null,
    // The registration data (public key, counter) stays on the server.
    passkeys: rel.passkeys.map((k) => ({ ...toPasskeySummaryDto(k), reg: null })),
    quota: rel.quota ? toQuotaDto(rel.quota) : null,
    avatar: row.avatar,
  };
}

/** A passkey as its owner sees it: everything but the registration data. */
export function toPasskeySummaryDto(row: PasskeyRow): PasskeySummaryDto {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    lastUsed: row.last_used === null ? null : toIso(row.last_used),
    name: row.name,
    userId: row.user_id,
  };
}

export function toApiTokenDto(row: ApiTokenRow): ApiTokenDto {
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(row.scopes),
    createdAt: toIso(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toIso(row.last_used_at),
    expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
  };
}

export interface ApiTokenDto {
  id: string;
  name: string;
  scopes: TokenScope[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}
