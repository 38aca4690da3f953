// Shapes of the passkey routes: a passkey as its owner lists it (without its registration data), and the
// browser's WebAuthn answers as @simplewebauthn/browser serialises them (checked in depth by the verification).
import { z } from 'zod';
import { PasskeySchema } from './user.js';

export const PasskeySummarySchema = PasskeySchema.omit({ reg: true }).meta({ id: 'PasskeySummary' });
export type PasskeySummaryDto = z.infer<typeof PasskeySummarySchema>;

const base64url = z.string().max(16_384);

export const RegistrationResponseSchema = z
  .looseObject({
    id: base64url,
    rawId: base64url,
    type: z.literal('public-key'),
    response: z.looseObject({ clientDataJSON: base64url, attestationObject: z.string().max(65_536) }),
    clientExtensionResults: z.looseObject({}),
  })
  .describe('the RegistrationResponseJSON of navigator.credentials.create(), e.g. from startRegistration()')
  .meta({ id: 'WebAuthnRegistrationResponse' });

export const AuthenticationResponseSchema = z
  .looseObject({
    id: base64url,
    rawId: base64url,
    type: z.literal('public-key'),
    response: z.looseObject({
      clientDataJSON: base64url,
      authenticatorData: base64url,
      signature: base64url,
      userHandle: base64url.optional(),
    }),
    clientExtensionResults: z.looseObject({}),
  })
  .describe('the AuthenticationResponseJSON of navigator.credentials.get(), e.g. from startAuthentication()')
  .meta({ id: 'WebAuthnAuthenticationResponse' });
