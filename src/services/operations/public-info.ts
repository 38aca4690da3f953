// What the server tells anyone before they sign in (GET /api/server/public): the site's title, the ways in that are
// open (registration, invites, OAuth providers, second factors), whether setup is still to do, the chunk sizes,
// the keep-original-name and link (extensionless or not) defaults the upload page uses, and how long a new password
// must be.
import type { AppContext } from '../../context.js';
import type { PublicServerInfo } from '../../schemas/server.js';
import { isFirstSetup } from '../accounts/account.js';
import { configuredProviders } from '../accounts/oauth.js';
import { PASSWORD_MAX_LENGTH } from '../../lib/security/password-rules.js';

export async function publicServerInfo(ctx: AppContext): Promise<PublicServerInfo> {
  const { siteTitle, registrationEnabled, invitesEnabled, chunksEnabled, chunksThreshold, chunksSize } =
    ctx.settings.get();
  const { mfaTotpEnabled, mfaPasskeys, passwordMinLength, filesKeepOriginalName, filesExtensionlessUrls } =
    ctx.settings.get();
  return {
    siteTitle,
    registrationEnabled,
    invitesEnabled,
    firstSetup: await isFirstSetup(ctx),
    chunksEnabled,
    chunksThreshold,
    chunksSize,
    filesKeepOriginalName,
    filesExtensionlessUrls,
    oauthProviders: configuredProviders(ctx),
    mfaTotpEnabled,
    mfaPasskeys,
    passwordMinLength,
    passwordMaxLength: PASSWORD_MAX_LENGTH,
  };
}
