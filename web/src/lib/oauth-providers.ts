// The sign-in providers as the dashboard names them, and the addresses that start their flows (src/routes/accounts/oauth.ts):
// plain links, since the flow is a chain of full-page redirects through the provider and back.
import type { OAuthProviderKind } from '../api/types';

export const OAUTH_PROVIDER_LABELS: Record<OAuthProviderKind, string> = {
  DISCORD: 'Discord',
  GITHUB: 'GitHub',
  GOOGLE: 'Google',
  OIDC: 'SSO',
};

/** Where a sign-in (or, with `link`, linking to the signed-in account) through `provider` starts. */
export function oauthStartUrl(provider: OAuthProviderKind, link = false): string {
  return `/api/auth/oauth/${provider.toLowerCase()}${link ? '?state=link' : ''}`;
}
