// What a person reads when signing in (or linking an account) through an OAuth provider fails: one sentence per
// error code of those flows, naming the provider; the details go to the server's log, never to the page.
import type { ErrorCode } from '../lib/error-codes.js';
import type { ErrorPageText } from './error-page.js';

const PROVIDER_LABELS: Record<string, string> = {
  DISCORD: 'Discord',
  GITHUB: 'GitHub',
  GOOGLE: 'Google',
  OIDC: 'your identity provider',
};

/**
 * `reason` is what the error carried for a refusal that shares its code with another (3017: an identity in none of
 * the groups allowed to sign in, rather than one linked to another account).
 */
export function oauthErrorText(code: ErrorCode, provider: string, reason?: unknown): ErrorPageText {
  const name = PROVIDER_LABELS[provider] ?? provider;
  const title = `Signing in with ${name} did not work`;
  if (code === 3017 && reason === 'not-in-allowed-groups') {
    return {
      title: 'You may not sign in to this server',
      message:
        `Your ${name} account is not in a group that may use this server. If you should have access, ask its ` +
        'administrator to add you to the right group, then sign in again. (error 3017)',
    };
  }
  const messages: Partial<Record<ErrorCode, string>> = {
    1063: `This account is already linked to ${name}. Unlink it first to link another ${name} account.`,
    1064: 'The sign-in could not be matched to this browser, or it took too long. Start again from the sign-in page.',
    2002: `Sign in to Chute first, then link ${name} from your settings.`,
    2003: `Signing in with ${name} is not set up on this server. Ask its administrator.`,
    3016: `No account is linked to this ${name} account, and this server does not create accounts through ${name}.`,
    3017: `This ${name} account belongs to another user of this server.`,
    6004: `${name} did not confirm the sign-in (the code exchange or its ID token failed). Try again.`,
    6005: `${name} answered without an access token. Try again later.`,
    6006: `${name} answered without a refresh token. Try again later.`,
    6007: `Your profile could not be read from ${name}. Try again later.`,
    6008: `${name} could not be reached, or it refused the sign-in. Try again later.`,
    6009: `An account could not be created from your ${name} profile. Ask the administrator to create one.`,
    6010: `An account named like your ${name} account already exists. Sign in to it and link ${name} from its settings.`,
  };
  return { title, message: `${messages[code] ?? 'Something went wrong. Try again in a moment.'} (error ${code})` };
}
