// The accounts area: first-time setup, signing in and out (password, passkey, OAuth), registration and invites, the
// caller's own account (/api/user: profile, tokens, avatar, second factors, exports) and user administration.
import { registerRouteGroups } from '../../http/auth.js';
import type { AreaPlugin } from '../../http/types.js';
import { authWebauthnRoutes } from './auth-webauthn.js';
import { loginRoutes, logoutRoutes } from './auth.js';
import { inviteLookupRoutes, inviteRoutes } from './invites.js';
import { oauthFlowRoutes, oauthLinkRoutes } from './oauth.js';
import { registerRoutes } from './register.js';
import { setupRoutes } from './setup.js';
import { userAvatarRoutes, usersAvatarRoutes } from './user-avatar.js';
import { userExportRoutes } from './user-exports.js';
import { userMfaPasskeyRoutes } from './user-mfa-passkey.js';
import { userMfaTotpRoutes } from './user-mfa-totp.js';
import { userTokenRoutes } from './user-tokens.js';
import { userRoutes } from './user.js';
import { usersRoutes } from './users.js';

export const accountsArea: AreaPlugin = async (app, { ctx }) => {
  await registerRouteGroups(app, ctx, [
    { prefix: '/api/setup', access: 'anyone', routes: [setupRoutes] },
    {
      prefix: '/api/auth',
      access: 'anyone',
      routes: [loginRoutes, authWebauthnRoutes, registerRoutes, inviteLookupRoutes],
    },
    // Signing out, and the OAuth flows (linking a provider needs the signed-in browser that asks).
    { prefix: '/api/auth', access: 'optional-user', routes: [logoutRoutes, oauthFlowRoutes] },
    { prefix: '/api/auth', access: 'user', routes: [oauthLinkRoutes] },
    { prefix: '/api/auth/invites', access: 'admin', routes: [inviteRoutes] },
    {
      prefix: '/api/user',
      access: 'user',
      routes: [
        userRoutes,
        userTokenRoutes,
        userAvatarRoutes,
        userMfaTotpRoutes,
        userMfaPasskeyRoutes,
        userExportRoutes,
      ],
    },
    { prefix: '/api/users', access: 'admin', routes: [usersRoutes, usersAvatarRoutes] },
  ]);
};
