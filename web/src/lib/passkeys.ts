// Passkeys in the browser: whether it can use them, and what to say when it did not give one.
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { ApiRequestError } from '../api/client';
import { errorMessage } from './notify';

export function passkeysSupported(): boolean {
  return browserSupportsWebAuthn();
}

/** A failed passkey step in words: the API's sentence, or the browser's refusal (cancelled, timed out, none). */
export function passkeyErrorMessage(err: unknown): string {
  if (err instanceof ApiRequestError) return errorMessage(err);
  if (err instanceof Error && err.name === 'AbortError') return 'The passkey request was cancelled.';
  if (err instanceof Error && err.name === 'InvalidStateError') return 'That passkey is already registered.';
  return 'Your browser gave no passkey: the request was cancelled, timed out, or no passkey for this site was found.';
}
