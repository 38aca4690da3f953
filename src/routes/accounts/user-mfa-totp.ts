// TOTP of the current user: GET/POST/DELETE /api/user/mfa/totp and POST /api/user/mfa/totp/recovery.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import { loginAttemptsLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { UserSchema } from '../../schemas/user.js';
import { loadUserDto } from '../../services/accounts/account.js';
import { disableTotp, enableTotp, newTotpSetup, regenerateRecoveryCodes } from '../../services/accounts/totp.js';

const tags = ['user'];

const CodeSchema = z.string().min(1).max(32).describe('a 6-digit code from the authenticator app, or a recovery code');
const RecoveryCodesSchema = z
  .array(z.string())
  .describe('ten single-use recovery codes, shown this once (stored hashed); each works in place of a code');

/** Under /api/user, for a signed-in user. */
export const userMfaTotpRoutes: RouteModule = (app, ctx) => {
  // Codes are guesses of a secret: they count against the login's limit (10 a minute per address).
  const loginAttempts = loginAttemptsLimit(app, ctx);

  app.get(
    '/mfa/totp',
    {
      schema: {
        tags,
        summary: 'A new TOTP secret to scan, while TOTP is off',
        description:
          'Nothing is stored until the secret is confirmed with POST. 1069 when TOTP is already on, 1054 when the ' +
          'server setting mfaTotpEnabled is off.',
        response: {
          200: z.object({
            secret: z.string().describe('base32, for typing into an authenticator app'),
            uri: z.string().describe('the otpauth:// URI'),
            qrcode: z.string().describe('the URI as a QR code, a PNG data URL'),
          }),
        },
      },
    },
    async (request) => newTotpSetup(ctx, caller(request).user),
  );

  app.post(
    '/mfa/totp',
    {
      onRequest: loginAttempts,
      schema: {
        tags,
        summary: 'Turn TOTP on with the secret from GET and a code made from it',
        description:
          'Answers the User with the recovery codes (shown only this once). 1045 when the code is wrong, 1069 when ' +
          'TOTP is already on, 1054 when mfaTotpEnabled is off.',
        body: z.object({
          secret: z
            .string()
            .regex(/^[A-Za-z2-7\s]{16,128}=*$/, 'must be a base32 secret')
            .describe('the secret from GET'),
          code: z.string().min(1).max(16),
        }),
        response: { 200: UserSchema.extend({ recoveryCodes: RecoveryCodesSchema }) },
      },
    },
    async (request) => {
      const { user, recoveryCodes } = await enableTotp(ctx, caller(request).user, request.body);
      return { ...(await loadUserDto(ctx, user)), recoveryCodes };
    },
  );

  app.delete(
    '/mfa/totp',
    {
      onRequest: loginAttempts,
      schema: {
        tags,
        summary: 'Turn TOTP off',
        description:
          'Needs a current code or a recovery code (1045 otherwise); the recovery codes go with it. 1053 when TOTP ' +
          'is not on, 1054 when mfaTotpEnabled is off.',
        body: z.object({ code: CodeSchema }),
        response: { 200: UserSchema },
      },
    },
    async (request) => loadUserDto(ctx, await disableTotp(ctx, caller(request).user, request.body.code)),
  );

  app.post(
    '/mfa/totp/recovery',
    {
      onRequest: loginAttempts,
      schema: {
        tags,
        summary: 'Replace the recovery codes; the old ones stop working',
        description: 'Needs a current code or a recovery code (1045 otherwise); 1053 when TOTP is not on.',
        body: z.object({ code: CodeSchema }),
        response: { 200: z.object({ recoveryCodes: RecoveryCodesSchema }) },
      },
    },
    async (request) => ({ recoveryCodes: await regenerateRecoveryCodes(ctx, caller(request).user, request.body.code) }),
  );
};
