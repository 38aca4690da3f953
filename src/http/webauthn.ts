// WebAuthn's HTTP side: the relying party a request speaks to, and the cookie that carries a login challenge's id
// from GET /api/auth/webauthn/options to the request that answers it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { CHALLENGE_TTL_MS, type RelyingParty } from '../services/accounts/passkeys.js';

export const CHALLENGE_COOKIE = 'webauthn-challenge-id';

/**
 * The RP ID and origin passkeys are bound to: PUBLIC_URL's host and origin, else the request's own (its Host, and
 * X-Forwarded-Proto/-Host with TRUST_PROXY). Behind a reverse proxy set PUBLIC_URL, or passkeys registered through
 * one address do not work through another.
 */
export function relyingParty(ctx: AppContext, request: FastifyRequest): RelyingParty {
  if (ctx.config.PUBLIC_URL) {
    const url = new URL(ctx.config.PUBLIC_URL);
    return { id: url.hostname, origin: url.origin };
  }
  return { id: request.hostname, origin: `${request.protocol}://${request.host}` };
}

export function setChallengeCookie(request: FastifyRequest, reply: FastifyReply, id: string): void {
  reply.setCookie(CHALLENGE_COOKIE, id, {
    path: '/api/auth',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    maxAge: Math.floor(CHALLENGE_TTL_MS / 1000),
  });
}

export function clearChallengeCookie(reply: FastifyReply): void {
  reply.clearCookie(CHALLENGE_COOKIE, { path: '/api/auth' });
}

/** The login challenge a request answers: `id` in its body, else the cookie set with the options. */
export function challengeIdOf(request: FastifyRequest, fromBody: string | undefined): string | undefined {
  return fromBody || request.cookies[CHALLENGE_COOKIE] || undefined;
}
