// One local HTTP server that answers like Discord's, GitHub's and Google's OAuth 2 endpoints (authorize, token,
// user), under /discord, /github and /google. Its authorize endpoint approves at once (as a person who clicks
// "Authorize" would); its token endpoint checks what the real ones check (client, code, redirect URI, PKCE S256
// verifier); a test chooses whom the next sign-in is as, and how the next answers break.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeProviderName = 'discord' | 'github' | 'google';

/** What the next token or user answer does instead of succeeding. */
export type FakeFailure =
  'token-http-error' | 'token-error-in-body' | 'no-access-token' | 'no-refresh-token' | 'user-http-error' | null;

export interface FakeAccount {
  id: string;
  username: string;
}

interface PendingCode {
  provider: FakeProviderName;
  redirectUri: string;
  challenge: string | null;
  account: FakeAccount;
}

export interface FakeOAuthProviders {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Environment variables pointing Chute's settings for all three providers at this server. */
  env(): Record<string, string>;
  signInAs(account: FakeAccount): void;
  failNext(failure: FakeFailure): void;
  /** The requests the token endpoints received, for assertions on what Chute sent. */
  tokenRequests: URLSearchParams[];
  close(): Promise<void>;
}

const S256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startFakeOAuthProviders(): Promise<FakeOAuthProviders> {
  const clientId = 'fake-client';
  const clientSecret = 'fake-client-secret';
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, { provider: FakeProviderName; account: FakeAccount }>();
  const tokenRequests: URLSearchParams[] = [];
  let next: FakeAccount = { id: '1', username: 'someone' };
  let failure: FakeFailure = null;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const authorize = (provider: FakeProviderName, query: URLSearchParams, res: http.ServerResponse) => {
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== clientId || !redirectUri) return json(res, 400, { error: 'invalid_request' });
    const code = randomBytes(12).toString('hex');
    const method = query.get('code_challenge_method');
    codes.set(code, {
      provider,
      redirectUri,
      challenge: method === 'S256' ? query.get('code_challenge') : null,
      account: next,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', query.get('state') ?? '');
    res.writeHead(302, { location: back.href }).end();
  };

  const token = (provider: FakeProviderName, form: URLSearchParams, res: http.ServerResponse) => {
    tokenRequests.push(form);
    const pending = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    const fail = failure;
    failure = fail === 'user-http-error' ? fail : null;
    const refuse = (error: string) =>
      // GitHub answers a bad code with 200 and an error field; the others with 400.
      json(res, provider === 'github' ? 200 : 400, { error, error_description: `refused: ${error}` });
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return refuse('invalid_client');
    if (!pending || pending.provider !== provider || pending.redirectUri !== form.get('redirect_uri')) {
      return refuse('invalid_grant');
    }
    if (pending.challenge !== null && S256(form.get('code_verifier') ?? '') !== pending.challenge) {
      return refuse('invalid_grant');
    }
    if (fail === 'token-http-error') return json(res, 502, { message: 'bad gateway' });
    if (fail === 'token-error-in-body') return json(res, 200, { error: 'bad_verification_code' });
    const accessToken = `at-${randomBytes(12).toString('hex')}`;
    tokens.set(accessToken, { provider, account: pending.account });
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', scope: 'identify' };
    if (fail === 'no-access-token') delete body.access_token;
    if (provider !== 'github' && fail !== 'no-refresh-token')
      body.refresh_token = `rt-${randomBytes(8).toString('hex')}`;
    json(res, 200, body);
  };

  const user = (provider: FakeProviderName, req: http.IncomingMessage, res: http.ServerResponse) => {
    if (failure === 'user-http-error') {
      failure = null;
      return json(res, 401, { message: '401: Unauthorized' });
    }
    const given = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!given || given.provider !== provider) return json(res, 401, { message: 'bad token' });
    const { account } = given;
    if (provider === 'discord') return json(res, 200, { id: account.id, username: account.username, global_name: 'X' });
    if (provider === 'github') {
      if (!req.headers['user-agent']) return json(res, 403, { message: 'a User-Agent is required' });
      return json(res, 200, { id: Number(account.id), login: account.username, name: 'Display Name' });
    }
    return json(res, 200, { sub: account.id, name: 'Display Name', email: `${account.username}@example.test` });
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const [, provider, ...rest] = url.pathname.split('/');
    const endpoint = rest.join('/');
    if (provider !== 'discord' && provider !== 'github' && provider !== 'google') return json(res, 404, {});
    if (endpoint === 'authorize') return authorize(provider, url.searchParams, res);
    if (endpoint === 'user') return user(provider, req, res);
    if (endpoint === 'token' && req.method === 'POST') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => token(provider, new URLSearchParams(body), res));
      return;
    }
    json(res, 404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    clientId,
    clientSecret,
    env: () => {
      const env: Record<string, string> = {};
      for (const name of ['discord', 'github', 'google'] as const) {
        const key = name.toUpperCase();
        env[`OAUTH_${key}_CLIENT_ID`] = clientId;
        env[`OAUTH_${key}_CLIENT_SECRET`] = clientSecret;
        env[`OAUTH_${key}_AUTHORIZE_URL`] = `${url}/${name}/authorize`;
        env[`OAUTH_${key}_TOKEN_URL`] = `${url}/${name}/token`;
        env[`OAUTH_${key}_USER_URL`] = `${url}/${name}/user`;
      }
      return env;
    },
    signInAs: (account) => {
      next = account;
    },
    failNext: (f) => {
      failure = f;
    },
    tokenRequests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
