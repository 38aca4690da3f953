// A real OpenID Connect provider for tests: the `oidc-provider` package (a certified implementation) on a port of
// its own, behind a small front server that the tests control: it signs in whoever the test chose (no login form),
// can break the signature of the ID tokens it hands out, and can go down. Groups: the scope `groups` carries the claims
// `groups` and `realm_access` (Keycloak's shape) of the account, in the userinfo answer, or in the ID token too when
// started with `groupsInIdToken`.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OidcAccount {
  sub: string;
  preferred_username?: string;
  email?: string;
  /** The claim `groups` (any value: tests give malformed ones too). */
  groups?: unknown;
  /** Keycloak's realm roles claim, e.g. {roles: ['chute-admin']}. */
  realm_access?: unknown;
}

export interface OidcProviderOptions {
  /** Scope-requested claims (groups among them) go into the ID token as well as the userinfo answer. */
  groupsInIdToken?: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next sign-in at the provider is made as. */
  signInAs(account: OidcAccount): void;
  /** When on, every ID token the token endpoint answers has a broken signature. */
  tamperIdTokens: boolean;
  /** The provider stops answering (connections refused) until started again. */
  goDown(): Promise<void>;
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

export async function startOidcProvider(
  redirectUris: string[],
  options: OidcProviderOptions = {},
): Promise<TestOidcProvider> {
  const accounts = new Map<string, OidcAccount>();
  let next: OidcAccount | undefined;
  const clientId = 'chute-test';
  const clientSecret = 'chute-test-secret-that-is-long-enough';
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

  let front = http.createServer();
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const port = (front.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...key, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups', 'realm_access'] },
    conformIdTokenClaims: !options.groupsInIdToken,
    features: { devInteractions: { enabled: false } },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ ...account }) } : undefined;
    },
    // Consent is given at once: the tests are about Chute, not the provider's consent screen.
    loadExistingGrant: async (ctx) => {
      const oidcCtx = ctx.oidc;
      const existing = oidcCtx.session?.grantIdFor(oidcCtx.client!.clientId);
      if (existing) return oidcCtx.provider.Grant.find(existing);
      const grant = new oidcCtx.provider.Grant({
        clientId: oidcCtx.client!.clientId,
        accountId: oidcCtx.session!.accountId!,
      });
      grant.addOIDCScope('openid profile email groups');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();

  const state = { tamperIdTokens: false };
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      if (!next) throw new Error('the test did not say whom to sign in as (signInAs)');
      accounts.set(next.sub, next);
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: next.sub } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (state.tamperIdTokens && req.url?.startsWith('/token')) breakIdTokenSignature(res);
    callback(req, res);
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  };
  front.on('request', listener);

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (account) => {
      next = account;
    },
    get tamperIdTokens() {
      return state.tamperIdTokens;
    },
    set tamperIdTokens(on: boolean) {
      state.tamperIdTokens = on;
    },
    goDown: () => closeServer(front),
    comeBack: async () => {
      front = http.createServer(listener);
      await new Promise<void>((resolve) => front.listen(port, '127.0.0.1', resolve));
    },
    close: () => (front.listening ? closeServer(front) : Promise.resolve()),
  };
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Changes one character of the ID token's signature in the token endpoint's JSON answer (same length). */
function breakIdTokenSignature(res: http.ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (chunk !== undefined && typeof chunk !== 'function') {
      const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
      const broken = text.replace(
        /("id_token":"[^."]+\.[^."]+\.)([^"]{10})([^"])/,
        (_m, head: string, sig: string, c: string) => {
          return `${head}${sig}${c === 'A' ? 'B' : 'A'}`;
        },
      );
      return end(broken, ...rest);
    }
    return end(chunk, ...rest);
  }) as typeof res.end;
}
