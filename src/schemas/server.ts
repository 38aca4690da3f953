// What the server tells anyone before they log in (GET /api/server/public).
import { z } from 'zod';

export const PublicServerInfoSchema = z
  .object({
    siteTitle: z.string(),
    registrationEnabled: z.boolean(),
    invitesEnabled: z.boolean(),
    firstSetup: z.boolean().describe('true until the first user (a SUPERADMIN) exists'),
    chunksEnabled: z.boolean().describe('the dashboard uploads large files in chunks (POST /api/upload/partial)'),
    chunksThreshold: z.number().int().describe('files larger than this many bytes go in chunks'),
    chunksSize: z.number().int().describe('bytes per chunk'),
    filesKeepOriginalName: z
      .boolean()
      .describe(
        "an upload without x-service-original-name keeps the client's file name as originalName (the upload page's default)",
      ),
    filesExtensionlessUrls: z
      .boolean()
      .describe('uploads without x-service-extensionless are handed links without the file extension'),
    oauthProviders: z
      .array(z.enum(['DISCORD', 'GITHUB', 'GOOGLE', 'OIDC']))
      .describe('the providers an admin configured: a sign-in page offers a button for each'),
    mfaTotpEnabled: z.boolean().describe('users may turn on TOTP codes'),
    mfaPasskeys: z.boolean().describe('users may register passkeys and sign in with them'),
    passwordMinLength: z
      .number()
      .int()
      .describe('the shortest new password, in characters (Unicode code points after NFKC)'),
    passwordMaxLength: z.number().int().describe('the longest password, in characters'),
  })
  .meta({ id: 'PublicServerInfo' });

export type PublicServerInfo = z.infer<typeof PublicServerInfoSchema>;
