// The calls of the Security tab (src/routes/accounts/user-mfa-totp.ts, user-mfa-passkey.ts): TOTP with its recovery codes,
// and passkeys, registered through the browser's WebAuthn (@simplewebauthn/browser).
import { startRegistration } from '@simplewebauthn/browser';
import { request } from '../../api/client';
import type { WebAuthnRegistrationResponse } from '../../api/types';

/** A new secret with its otpauth:// URI and QR code (TOTP is off; nothing is stored yet). */
export function newTotpSecret() {
  return request('get', '/api/user/mfa/totp');
}

/** Turns TOTP on; the answer carries the recovery codes, shown this once. */
export function enableTotp(secret: string, code: string) {
  return request('post', '/api/user/mfa/totp', { body: { secret, code } });
}

/** Turns TOTP off with a code or a recovery code. */
export function disableTotp(code: string) {
  return request('delete', '/api/user/mfa/totp', { body: { code } });
}

/** New recovery codes (the old ones stop working), confirmed with a code. */
export function regenerateRecoveryCodes(code: string) {
  return request('post', '/api/user/mfa/totp/recovery', { body: { code } });
}

export function listPasskeys(signal: AbortSignal) {
  return request('get', '/api/user/mfa/passkey', { signal });
}

/** Asks the browser (and the person) for a new passkey, and registers it under `name`. */
export async function addPasskey(name: string) {
  const options = await request('get', '/api/user/mfa/passkey/options');
  // The API describes only the options' challenge and the answer's outline; @simplewebauthn makes both sides.
  const optionsJSON = options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'];
  const response = (await startRegistration({ optionsJSON })) as unknown as WebAuthnRegistrationResponse;
  return request('post', '/api/user/mfa/passkey', { body: { name, response } });
}

export function renamePasskey(id: string, name: string) {
  return request('patch', '/api/user/mfa/passkey', { body: { id, name } });
}

export function removePasskey(id: string) {
  return request('delete', '/api/user/mfa/passkey', { body: { id } });
}
