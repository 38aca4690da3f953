// Passkeys of the current user: GET/POST/PATCH/DELETE /api/user/mfa/passkey and GET /api/user/mfa/passkey/options.
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { relyingParty } from '../../http/webauthn.js';
import { PasskeySummarySchema, RegistrationResponseSchema } from '../../schemas/passkey.js';
import { toPasskeySummaryDto } from '../../services/accounts/dto.js';
import {
  listPasskeys,
  registerPasskey,
  registrationOptions,
  removePasskey,
  renamePasskey,
} from '../../services/accounts/passkeys.js';

const tags = ['user'];
const OFF = ' 9001 while the server setting mfaPasskeys is off.';
const PasskeyName = z.string().trim().min(1).max(100);

/** Under /api/user, for a signed-in user. */
export const userMfaPasskeyRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/mfa/passkey',
    {
      schema: {
        tags,
        summary: "The user's passkeys (never their registration data)",
        response: { 200: z.array(PasskeySummarySchema) },
      },
    },
    async (request) => (await listPasskeys(ctx, caller(request).user.id)).map(toPasskeySummaryDto),
  );

  app.get(
    '/mfa/passkey/options',
    {
      schema: {
        tags,
        summary: 'Options for registering a passkey (PublicKeyCredentialCreationOptionsJSON)',
        description:
          'Pass them to startRegistration() of @simplewebauthn/browser (or navigator.credentials.create()) and POST ' +
          `the answer within 5 minutes. The RP ID and origin are PUBLIC_URL's (else the request's own).${OFF}`,
        response: { 200: z.looseObject({ challenge: z.string() }) },
      },
    },
    async (request) => ({ ...(await registrationOptions(ctx, caller(request).user, relyingParty(ctx, request))) }),
  );

  app.post(
    '/mfa/passkey',
    {
      schema: {
        tags,
        summary: 'Register a passkey with the answer to the latest options',
        description:
          '1046 when no options were asked for (or they were used), 1047 without response, 1048 when the options ' +
          `are older than 5 minutes, 1049 when the verification rejects the answer, 1050 when it does not hold.${OFF}`,
        body: z.object({ response: RegistrationResponseSchema.optional(), name: PasskeyName }),
        response: { 200: PasskeySummarySchema },
      },
    },
    async (request) => {
      const row = await registerPasskey(ctx, caller(request).user, relyingParty(ctx, request), {
        response: request.body.response as RegistrationResponseJSON | undefined,
        name: request.body.name,
      });
      return toPasskeySummaryDto(row);
    },
  );

  app.patch(
    '/mfa/passkey',
    {
      schema: {
        tags,
        summary: 'Rename a passkey',
        description: `9002 when the user has no passkey with this id.${OFF}`,
        body: z.object({ id: z.string().min(1), name: PasskeyName }),
        response: { 200: PasskeySummarySchema },
      },
    },
    async (request) =>
      toPasskeySummaryDto(await renamePasskey(ctx, caller(request).user.id, request.body.id, request.body.name)),
  );

  app.delete(
    '/mfa/passkey',
    {
      schema: {
        tags,
        summary: 'Remove a passkey; answers the removed passkey',
        description: `9002 when the user has no passkey with this id.${OFF}`,
        body: z.object({ id: z.string().min(1) }),
        response: { 200: PasskeySummarySchema },
      },
    },
    async (request) => toPasskeySummaryDto(await removePasskey(ctx, caller(request).user.id, request.body.id)),
  );
};
