// Signing in through OAuth 2 / OpenID Connect providers: the flow between the start and the callback (its state kept
// in an encrypted, expiring browser cookie, so that any instance can finish it), and what a finished flow does:
// sign in the linked user, register a new one (oauthRegistration), or link the identity to the signed-in account.
// Unlinking refuses to leave an account with no way to sign in. OpenID Connect sign-ins follow the groups claim:
// oauthOidcAllowedGroups refuses outsiders, oauthOidcAdminGroups sets the ADMIN role (lib/security/group-roles.ts).
import type { AppContext } from '../../context.js';
import type { Db, OAuthProviderKind, OAuthProviderRow, Role, UserRow } from '../../db/schema/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { inAnyGroup, roleFromAdminGroup } from '../../lib/security/group-roles.js';
import { canonicalUsername } from '../../lib/text/usernames.js';
import { findUserById, insertUser } from './account.js';
import {
  authorizationRequest,
  completeAuthorization,
  isProviderConfigured,
  OAUTH_PROVIDERS,
  type FlowSecrets,
  type ProviderIdentity,
} from './oauth-providers.js';
import { signIn, type SessionOrigin, type SignedIn } from './sessions.js';
import { setUserColumns } from './user-records.js';
import { auditLoginFailed, auditRoleFromGroups } from '../directory/audit-hooks.js';
import { findLdapAccountOfUser } from '../directory/ldap-accounts.js';

/** How long a person has between leaving for the provider and coming back. */
export const OAUTH_FLOW_TTL_MS = 10 * 60_000;
const FLOW_PURPOSE = 'oauth-flow';

interface FlowCookie extends FlowSecrets {
  p: typeof FLOW_PURPOSE;
  provider: OAuthProviderKind;
  /** Set when the flow links the identity to this (signed-in) user. */
  linkUserId: string | null;
  expiresAt: number;
}

/** The providers an admin has configured, for the sign-in page's buttons. */
export function configuredProviders(ctx: AppContext): OAuthProviderKind[] {
  const settings = ctx.settings.get();
  return OAUTH_PROVIDERS.filter((p) => isProviderConfigured(settings, p));
}

/**
 * Starts a flow: the provider's authorization URL, and the encrypted cookie value that binds the flow's state,
 * PKCE verifier and nonce to this browser until it expires. `linkUser` makes it a linking flow.
 */
export async function startOAuthFlow(
  ctx: AppContext,
  provider: OAuthProviderKind,
  redirectUri: string,
  linkUser: UserRow | null,
): Promise<{ url: string; cookie: string }> {
  const { url, secrets } = await authorizationRequest(ctx.settings.get(), provider, redirectUri);
  const flow: FlowCookie = {
    p: FLOW_PURPOSE,
    provider,
    linkUserId: linkUser?.id ?? null,
    expiresAt: ctx.clock.now() + OAUTH_FLOW_TTL_MS,
    ...secrets,
  };
  return { url, cookie: ctx.secrets.encrypt(JSON.stringify(flow)) };
}

/** The flow the cookie carries, if it is ours, for this provider and this state, and not expired (1064 otherwise). */
function openFlow(
  ctx: AppContext,
  provider: OAuthProviderKind,
  cookie: string | undefined,
  state: string | undefined,
): FlowCookie {
  if (!cookie) throw new ApiError(1064, 'no sign-in was started in this browser (or its cookie was lost)');
  let flow: FlowCookie;
  try {
    flow = JSON.parse(ctx.secrets.decrypt(cookie)) as FlowCookie;
  } catch {
    throw new ApiError(1064, 'the sign-in cookie is not valid');
  }
  if (flow.p !== FLOW_PURPOSE || flow.provider !== provider) {
    throw new ApiError(1064, 'the sign-in was started for another provider');
  }
  if (!state || state !== flow.state) throw new ApiError(1064, 'the state does not match the one this browser sent');
  if (flow.expiresAt <= ctx.clock.now()) throw new ApiError(1064, 'the sign-in took too long and expired');
  return flow;
}

export type OAuthOutcome =
  { kind: 'login'; user: UserRow; registered: boolean } | { kind: 'linked'; user: UserRow; link: OAuthProviderRow };

export interface OAuthCallback {
  provider: OAuthProviderKind;
  /** The callback's full address, with the provider's query (code, state, iss ...). */
  callbackUrl: URL;
  redirectUri: string;
  flowCookie: string | undefined;
  /** Who is signed in in this browser now (a linking flow must finish in the account that started it). */
  currentUser: UserRow | null;
}

/** Finishes a flow the provider sent the browser back from. */
export async function finishOAuthFlow(ctx: AppContext, callback: OAuthCallback): Promise<OAuthOutcome> {
  const { provider, callbackUrl } = callback;
  const flow = openFlow(ctx, provider, callback.flowCookie, callbackUrl.searchParams.get('state') ?? undefined);
  const refused = callbackUrl.searchParams.get('error');
  if (refused) {
    const description = callbackUrl.searchParams.get('error_description');
    throw new ApiError(6008, `${provider} answered ${refused}${description ? `: ${description}` : ''}`);
  }
  const identity = await completeAuthorization(ctx.settings.get(), provider, callbackUrl, callback.redirectUri, flow);
  if (flow.linkUserId) {
    if (callback.currentUser?.id !== flow.linkUserId) {
      throw new ApiError(1064, 'the account that started linking is no longer signed in here');
    }
    return linkIdentity(ctx, callback.currentUser, provider, identity);
  }
  return loginOrRegister(ctx, provider, identity);
}

/** finishOAuthFlow(), signing in the user it logged in or registered (a linking flow leaves the session as it is). */
export async function finishOAuthSignIn(
  ctx: AppContext,
  callback: OAuthCallback,
  origin: SessionOrigin,
): Promise<{ kind: 'linked' } | ({ kind: 'signed-in' } & SignedIn)> {
  const outcome = await finishOAuthFlow(ctx, callback);
  if (outcome.kind === 'linked') return { kind: 'linked' };
  return { kind: 'signed-in', ...(await signIn(ctx, outcome.user, origin)) };
}

async function findLink(db: Db, provider: OAuthProviderKind, oauthId: string) {
  return db
    .selectFrom('oauth_providers')
    .selectAll()
    .where('provider', '=', provider)
    .where('oauth_id', '=', oauthId)
    .executeTakeFirst();
}

/** Keeps the provider's latest name and tokens (encrypted) on a link. */
function refreshedLink(ctx: AppContext, identity: ProviderIdentity): Partial<OAuthProviderRow> {
  return {
    ...(identity.username ? { username: identity.username.slice(0, 128) } : {}),
    access_token: ctx.secrets.encrypt(identity.accessToken),
    refresh_token: identity.refreshToken === null ? null : ctx.secrets.encrypt(identity.refreshToken),
    updated_at: ctx.clock.now(),
  };
}

function newLink(ctx: AppContext, userId: string, provider: OAuthProviderKind, identity: ProviderIdentity) {
  const now = ctx.clock.now();
  return {
    id: newId(),
    user_id: userId,
    provider,
    username: (identity.username || identity.oauthId).slice(0, 128),
    oauth_id: identity.oauthId,
    access_token: ctx.secrets.encrypt(identity.accessToken),
    refresh_token: identity.refreshToken === null ? null : ctx.secrets.encrypt(identity.refreshToken),
    created_at: now,
    updated_at: now,
  } satisfies OAuthProviderRow;
}

/**
 * Links the identity to `user`: 1063 when the user already has a link to this provider, 3017 when this identity
 * belongs to another account (it cannot sign in to two).
 */
async function linkIdentity(
  ctx: AppContext,
  user: UserRow,
  provider: OAuthProviderKind,
  identity: ProviderIdentity,
): Promise<OAuthOutcome> {
  const existing = await findLink(ctx.db, provider, identity.oauthId);
  if (existing && existing.user_id !== user.id) {
    throw new ApiError(3017, `this ${provider} account is linked to another user`);
  }
  const own = await ctx.db
    .selectFrom('oauth_providers')
    .select('id')
    .where('user_id', '=', user.id)
    .where('provider', '=', provider)
    .executeTakeFirst();
  if (own) throw new ApiError(1063);
  const link = newLink(ctx, user.id, provider, identity);
  try {
    await ctx.db.insertInto('oauth_providers').values(link).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(3017, `this ${provider} account is linked to another user`);
    throw err;
  }
  return { kind: 'linked', user, link };
}

/** Signs in the user linked to the identity, or registers one (3016 when oauthRegistration is off). */
async function loginOrRegister(
  ctx: AppContext,
  provider: OAuthProviderKind,
  identity: ProviderIdentity,
): Promise<OAuthOutcome> {
  const existing = await findLink(ctx.db, provider, identity.oauthId);
  assertInAllowedGroups(ctx, provider, identity, existing?.user_id);
  if (existing) {
    await ctx.db
      .updateTable('oauth_providers')
      .set(refreshedLink(ctx, identity))
      .where('id', '=', existing.id)
      .execute();
    const user = await findUserById(ctx.db, existing.user_id);
    if (!user) throw new ApiError(3017, 'the linked account no longer exists');
    return { kind: 'login', user: await applyGroupRole(ctx, provider, identity, user), registered: false };
  }
  if (!ctx.settings.get().oauthRegistration) throw new ApiError(3016);
  return { kind: 'login', user: await registerFromIdentity(ctx, provider, identity), registered: true };
}

/** What the OIDC sign-in's refusal by oauthOidcAllowedGroups carries, for the refusal page (routes/accounts/oauth.ts). */
export const NOT_IN_ALLOWED_GROUPS = 'not-in-allowed-groups';

/**
 * With oauthOidcAllowedGroups set, an OIDC identity in none of them neither signs in nor registers (3017); a missing
 * or malformed groups claim is in none.
 */
function assertInAllowedGroups(
  ctx: AppContext,
  provider: OAuthProviderKind,
  identity: ProviderIdentity,
  userId: string | undefined,
): void {
  const allowed = ctx.settings.get().oauthOidcAllowedGroups;
  if (provider !== 'OIDC' || allowed.length === 0 || inAnyGroup(identity.groups, allowed)) return;
  auditLoginFailed(ctx, {
    username: identity.username || identity.oauthId,
    via: 'OIDC',
    reason: 'not in an allowed group',
    userId,
  });
  throw new ApiError(3017, 'the identity is in none of the groups that may sign in (oauthOidcAllowedGroups)', {
    extra: { reason: NOT_IN_ALLOWED_GROUPS },
  });
}

/** The role an OIDC sign-in gives under oauthOidcAdminGroups (unset: the account's own role stays). */
function groupRole(ctx: AppContext, provider: OAuthProviderKind, identity: ProviderIdentity, current: Role): Role {
  const adminGroups = ctx.settings.get().oauthOidcAdminGroups;
  if (provider !== 'OIDC' || adminGroups.length === 0) return current;
  return roleFromAdminGroup(current, inAnyGroup(identity.groups, adminGroups));
}

/** Stores the role the sign-in's groups give, when it differs from the account's. */
async function applyGroupRole(
  ctx: AppContext,
  provider: OAuthProviderKind,
  identity: ProviderIdentity,
  user: UserRow,
): Promise<UserRow> {
  const role = groupRole(ctx, provider, identity, user.role);
  if (role === user.role) return user;
  const updatedAt = ctx.clock.now();
  await setUserColumns(ctx.db, user.id, { role, updated_at: updatedAt });
  auditRoleFromGroups(ctx, { userId: user.id, username: user.username, via: 'OIDC', from: user.role, to: role });
  return { ...user, role, updated_at: updatedAt };
}

/** A new USER without a password, named after the provider's account (6010 taken, 6009 no usable name). */
async function registerFromIdentity(
  ctx: AppContext,
  provider: OAuthProviderKind,
  identity: ProviderIdentity,
): Promise<UserRow> {
  let username: string;
  try {
    username = canonicalUsername(identity.username);
  } catch {
    // Empty, too long, invisible characters or mixed scripts (lib/text/usernames.ts): not a name to register under.
    throw new ApiError(
      6009,
      `the ${provider} profile has no username Chute can use (${JSON.stringify(identity.username)})`,
    );
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const role = groupRole(ctx, provider, identity, 'USER');
      const user = await insertUser(ctx, trx, { username, passwordHash: null, role }, 6010);
      await trx
        .insertInto('oauth_providers')
        .values(newLink(ctx, user.id, provider, identity))
        .execute();
      return user;
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Two first sign-ins of one identity at once: the other one registered it.
    throw new ApiError(6009, 'the account could not be stored', { cause: err });
  }
}

/** The user's links, oldest first. */
export function listOAuthLinks(ctx: AppContext, userId: string): Promise<OAuthProviderRow[]> {
  return ctx.db.selectFrom('oauth_providers').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
}

/**
 * Removes the user's link to `provider` (1030 none) unless it is the last way to sign in of an account without a
 * password (1043). Returns the links that remain.
 */
export async function unlinkOAuthProvider(
  ctx: AppContext,
  user: UserRow,
  provider: OAuthProviderKind,
): Promise<OAuthProviderRow[]> {
  return ctx.db.transaction().execute(async (trx) => {
    const links = await trx.selectFrom('oauth_providers').selectAll().where('user_id', '=', user.id).execute();
    const link = links.find((l) => l.provider === provider);
    if (!link) throw new ApiError(1030, `no ${provider} link`);
    const current = await findUserById(trx, user.id);
    if (!current?.password && links.length === 1) {
      // A passkey that signs in on its own is another way in, and so is the directory the account came from.
      const passkey = await trx.selectFrom('passkeys').select('id').where('user_id', '=', user.id).executeTakeFirst();
      if (!passkey && !(await findLdapAccountOfUser(trx, user.id))) throw new ApiError(1043);
    }
    await trx.deleteFrom('oauth_providers').where('id', '=', link.id).execute();
    return links.filter((l) => l.id !== link.id).sort((a, b) => a.created_at - b.created_at);
  });
}

/** An imported sign-in link, in the import's transaction. */
export async function insertImportedOAuthProvider(db: Db, row: OAuthProviderRow): Promise<void> {
  await db.insertInto('oauth_providers').values(row).execute();
}
