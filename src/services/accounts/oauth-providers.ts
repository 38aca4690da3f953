// Talking to the sign-in providers: building the authorization URL, exchanging the code for tokens and reading who
// signed in. OpenID Connect goes through openid-client (discovery, PKCE, state, nonce, full ID token validation);
// Discord, GitHub and Google through their plain OAuth 2 endpoints (from the settings) with PKCE. Every failure
// becomes the specification's code (2003, 6004-6008) with the provider's own words kept as its cause for the log.
import type * as Oidc from 'openid-client';
import { loadOpenIdClient } from '../../lib/lazy-modules.js';
import type { OAuthProviderKind } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { readGroupsClaim } from '../../lib/security/group-roles.js';
import type { Settings } from '../operations/settings.js';

export const OAUTH_PROVIDERS: readonly OAuthProviderKind[] = ['DISCORD', 'GITHUB', 'GOOGLE', 'OIDC'];

/** What the provider told us about the person who signed in. */
export interface ProviderIdentity {
  /** The provider's stable id of the account (OIDC `sub`, Discord/GitHub/Google user id). */
  oauthId: string;
  /** A name for the account: preferred username, login, e-mail's local part ...; '' when the provider gave none. */
  username: string;
  accessToken: string;
  refreshToken: string | null;
  /**
   * OpenID Connect only: the groups of oauthOidcGroupsClaim, from the ID token, else from the userinfo answer;
   * `undefined` when neither has the claim, `null` when it is malformed (both grant nothing).
   */
  groups?: string[] | null | undefined;
}

/** The secrets of one flow, kept in the browser's flow cookie between the start and the callback. */
export interface FlowSecrets {
  state: string;
  codeVerifier: string;
  nonce?: string;
}

interface PlainProvider {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  userUrl: string;
  scope: string;
  /** Discord always issues a refresh token; its absence means a broken answer (6006). */
  refreshTokenRequired: boolean;
  extraAuthorizeParams: Record<string, string>;
  identity: (profile: Record<string, unknown>) => { oauthId: unknown; username: unknown };
}

const TIMEOUT_MS = 15_000;

/** Whether the provider has what it needs in the settings. */
export function isProviderConfigured(settings: Settings, provider: OAuthProviderKind): boolean {
  if (provider === 'OIDC') {
    return Boolean(settings.oauthOidcIssuer && settings.oauthOidcClientId && settings.oauthOidcClientSecret);
  }
  const plain = plainProviderSettings(settings, provider);
  return Boolean(plain.clientId && plain.clientSecret);
}

function plainProviderSettings(settings: Settings, provider: Exclude<OAuthProviderKind, 'OIDC'>) {
  switch (provider) {
    case 'DISCORD':
      return {
        clientId: settings.oauthDiscordClientId,
        clientSecret: settings.oauthDiscordClientSecret,
        authorizeUrl: settings.oauthDiscordAuthorizeUrl,
        tokenUrl: settings.oauthDiscordTokenUrl,
        userUrl: settings.oauthDiscordUserUrl,
      };
    case 'GITHUB':
      return {
        clientId: settings.oauthGithubClientId,
        clientSecret: settings.oauthGithubClientSecret,
        authorizeUrl: settings.oauthGithubAuthorizeUrl,
        tokenUrl: settings.oauthGithubTokenUrl,
        userUrl: settings.oauthGithubUserUrl,
      };
    case 'GOOGLE':
      return {
        clientId: settings.oauthGoogleClientId,
        clientSecret: settings.oauthGoogleClientSecret,
        authorizeUrl: settings.oauthGoogleAuthorizeUrl,
        tokenUrl: settings.oauthGoogleTokenUrl,
        userUrl: settings.oauthGoogleUserUrl,
      };
  }
}

function plainProvider(settings: Settings, provider: Exclude<OAuthProviderKind, 'OIDC'>): PlainProvider {
  const s = plainProviderSettings(settings, provider);
  if (!s.clientId || !s.clientSecret) throw new ApiError(2003, `${provider} has no client id and secret`);
  const base = { ...s, clientId: s.clientId, clientSecret: s.clientSecret };
  switch (provider) {
    case 'DISCORD':
      return {
        ...base,
        scope: 'identify',
        refreshTokenRequired: true,
        extraAuthorizeParams: {},
        identity: (p) => ({ oauthId: p.id, username: p.username }),
      };
    case 'GITHUB':
      return {
        ...base,
        scope: 'read:user',
        refreshTokenRequired: false,
        extraAuthorizeParams: {},
        identity: (p) => ({ oauthId: p.id, username: p.login }),
      };
    case 'GOOGLE':
      return {
        ...base,
        scope: 'openid profile email',
        refreshTokenRequired: false,
        extraAuthorizeParams: { access_type: 'offline', prompt: 'select_account' },
        identity: (p) => ({
          oauthId: p.sub ?? p.id,
          username: typeof p.email === 'string' ? p.email.split('@')[0] : p.name,
        }),
      };
  }
}

/** The OpenID Connect provider's configuration, read through discovery (2003 unset, 6008 unreachable or invalid). */
async function discoverOidc(settings: Settings): Promise<Oidc.Configuration> {
  const { oauthOidcIssuer: issuer, oauthOidcClientId: clientId, oauthOidcClientSecret: secret } = settings;
  if (!issuer || !clientId || !secret) throw new ApiError(2003, 'OIDC needs an issuer, a client id and a secret');
  const url = new URL(issuer);
  const oidc = await loadOpenIdClient();
  try {
    return await oidc.discovery(url, clientId, undefined, oidc.ClientSecretBasic(secret), {
      timeout: TIMEOUT_MS / 1000,
      execute: [
        // The ID token's signature is checked against the provider's JWKS too, not only trusted for coming over
        // TLS (which an http:// issuer does not even have).
        oidc.enableNonRepudiationChecks,
        // An admin who sets an http:// issuer (a provider on the same private network) chose plain HTTP.
        ...(url.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
      ],
    });
  } catch (err) {
    throw new ApiError(6008, `could not read the discovery document of ${issuer}: ${describe(err)}`, { cause: err });
  }
}

/** Where to send the browser to sign in, and the secrets the callback must present again. */
export async function authorizationRequest(
  settings: Settings,
  provider: OAuthProviderKind,
  redirectUri: string,
): Promise<{ url: string; secrets: FlowSecrets }> {
  const oidc = await loadOpenIdClient();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const params: Record<string, string> = {
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state: oidc.randomState(),
  };
  if (provider === 'OIDC') {
    const config = await discoverOidc(settings);
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, { ...params, scope: settings.oauthOidcScopes, nonce });
    return { url: url.href, secrets: { state: params.state!, codeVerifier, nonce } };
  }
  const p = plainProvider(settings, provider);
  const url = new URL(p.authorizeUrl);
  const query = { client_id: p.clientId, scope: p.scope, ...params, ...p.extraAuthorizeParams };
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return { url: url.href, secrets: { state: params.state!, codeVerifier } };
}

/**
 * Finishes the code flow: the token request (6004 failed, 6005 no access token, 6006 no refresh token where the
 * provider always gives one) and the profile (6007). `callbackUrl` is the whole callback address with its query.
 */
export async function completeAuthorization(
  settings: Settings,
  provider: OAuthProviderKind,
  callbackUrl: URL,
  redirectUri: string,
  secrets: FlowSecrets,
): Promise<ProviderIdentity> {
  if (provider === 'OIDC') return completeOidc(settings, callbackUrl, secrets);
  const p = plainProvider(settings, provider);
  const code = callbackUrl.searchParams.get('code') ?? '';
  const tokens = await requestJson(6004, p.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: p.clientId,
      client_secret: p.clientSecret,
      code_verifier: secrets.codeVerifier,
    }).toString(),
  });
  // GitHub answers a refused code with 200 and an error field.
  if (typeof tokens.error === 'string') {
    throw new ApiError(6004, `${provider} refused the code: ${tokens.error} ${String(tokens.error_description ?? '')}`);
  }
  const accessToken = tokens.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') throw new ApiError(6005, `${provider} token answer`);
  const refreshToken = typeof tokens.refresh_token === 'string' && tokens.refresh_token ? tokens.refresh_token : null;
  if (p.refreshTokenRequired && !refreshToken) throw new ApiError(6006, `${provider} token answer`);
  const profile = await requestJson(6007, p.userUrl, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'Chute' },
  });
  const { oauthId, username } = p.identity(profile);
  if ((typeof oauthId !== 'string' && typeof oauthId !== 'number') || String(oauthId) === '') {
    throw new ApiError(6007, `${provider}'s profile has no user id`);
  }
  return {
    oauthId: String(oauthId),
    username: typeof username === 'string' ? username.trim() : '',
    accessToken,
    refreshToken,
  };
}

async function completeOidc(settings: Settings, callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity> {
  const config = await discoverOidc(settings);
  const oidc = await loadOpenIdClient();
  let tokens: Awaited<ReturnType<typeof Oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: secrets.codeVerifier,
      expectedState: secrets.state,
      ...(secrets.nonce ? { expectedNonce: secrets.nonce } : {}),
      idTokenExpected: true,
    });
  } catch (err) {
    // A failed request, a refused code, or an ID token that does not validate (issuer, audience, expiry, nonce,
    // signature against the provider's JWKS): none of them signs anybody in.
    throw new ApiError(6004, describe(err), { cause: err });
  }
  const claims = tokens.claims();
  if (!claims) throw new ApiError(6004, 'no ID token in the token answer');
  let userinfo: Oidc.UserInfoResponse;
  try {
    userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  } catch (err) {
    throw new ApiError(6007, describe(err), { cause: err });
  }
  const email = typeof userinfo.email === 'string' ? userinfo.email.split('@')[0] : undefined;
  const username = [userinfo.preferred_username, claims.preferred_username, userinfo.nickname, email, userinfo.name]
    .map((v) => (typeof v === 'string' ? v.trim() : ''))
    .find((v) => v !== '');
  // The signed ID token first; a claim it does not carry may come with the userinfo answer (Authelia, Entra ID).
  const groupsClaim = settings.oauthOidcGroupsClaim;
  const fromIdToken = readGroupsClaim(claims, groupsClaim);
  return {
    oauthId: claims.sub,
    username: username ?? '',
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? null,
    groups: fromIdToken !== undefined ? fromIdToken : readGroupsClaim(userinfo, groupsClaim),
  };
}

/** A JSON request to a provider; a network failure, a timeout, an HTTP error or a body that is no JSON -> `code`. */
async function requestJson(
  code: 6004 | 6007,
  url: string,
  init: RequestInit & { headers: Record<string, string> },
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new ApiError(code, `${url}: ${describe(err)}`, { cause: err });
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) throw new ApiError(code, `${url} answered ${response.status}: ${text.slice(0, 500)}`);
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new ApiError(code, `${url} did not answer a JSON object: ${text.slice(0, 200)}`);
}

/** A failure in words for the log and the error's context (a network error names its cause). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}
