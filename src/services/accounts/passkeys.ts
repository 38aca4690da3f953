// Passkeys (WebAuthn, through @simplewebauthn/server): registering, naming and removing them, and signing in with
// one, alone or as the second step of a password login. Every challenge handed out with options is kept in the
// database with an expiry and consumed by the verification that uses it, so that any instance can finish a flow
// another one started. The relying party (RP ID and origin) comes from the caller: PUBLIC_URL, else the request's
// own origin.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { loadWebAuthn } from '../../lib/lazy-modules.js';
import type { AppContext } from '../../context.js';
import type { Db, PasskeyRow, UserRow, WebauthnPurpose } from '../../db/schema/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { userNotDeleted } from './deleted-owners.js';
import { signIn, type SessionOrigin, type SignedIn } from './sessions.js';

/** How long a challenge (and so a registration or login ceremony) lives. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

export interface RelyingParty {
  /** The RP ID: the host name passkeys are bound to. */
  id: string;
  /** The origin the browser reports, e.g. https://files.example.com. */
  origin: string;
}

/**
 * The public key algorithms (COSE ids) passkeys may have: EdDSA, ES256, RS256. Named here rather than left to
 * @simplewebauthn/server's default, which puts ML-DSA-44 first wherever Web Crypto has it (Node 24, experimental,
 * with an ExperimentalWarning); the same list is offered at registration and checked by its verification.
 */
const PASSKEY_ALGORITHMS = [-8, -7, -257];

/** What `passkeys.reg` holds (Zipline v4's late format); anything else is legacy registration data (1060). */
/** The transports a credential was registered with, as the verification gives them back. */
type Transports = NonNullable<Parameters<typeof verifyAuthenticationResponse>[0]['credential']['transports']>;

interface StoredRegistration {
  webauthn: {
    id: string;
    /** COSE public key, base64url. */
    publicKey: string;
    counter: number;
    transports?: Transports | undefined;
    deviceType?: string | undefined;
    backedUp?: boolean | undefined;
  };
}

export function assertPasskeysAllowed(ctx: AppContext): void {
  if (!ctx.settings.get().mfaPasskeys) throw new ApiError(9001, 'passkeys are turned off (server setting mfaPasskeys)');
}

export function listPasskeys(ctx: AppContext, userId: string): Promise<PasskeyRow[]> {
  return ctx.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
}

async function storeChallenge(
  ctx: AppContext,
  purpose: WebauthnPurpose,
  userId: string | null,
  challenge: string,
): Promise<string> {
  const now = ctx.clock.now();
  const id = newId();
  await ctx.db.transaction().execute(async (trx) => {
    // Expired challenges go as new ones come; a user has one registration under way at a time.
    await trx.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
    if (userId !== null) {
      await trx
        .deleteFrom('webauthn_challenges')
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .execute();
    }
    await trx
      .insertInto('webauthn_challenges')
      .values({ id, purpose, user_id: userId, challenge, created_at: now, expires_at: now + CHALLENGE_TTL_MS })
      .execute();
  });
  return id;
}

/** Takes a challenge out of the database (so it is used once); undefined when there is none. */
async function takeChallenge(
  ctx: AppContext,
  where: { id: string } | { userId: string },
  purpose: WebauthnPurpose,
): Promise<{ challenge: string; expired: boolean } | undefined> {
  let query = ctx.db.selectFrom('webauthn_challenges').selectAll().where('purpose', '=', purpose);
  query = 'id' in where ? query.where('id', '=', where.id) : query.where('user_id', '=', where.userId);
  const row = await query.orderBy('created_at', 'desc').executeTakeFirst();
  if (!row) return undefined;
  const deleted = await ctx.db.deleteFrom('webauthn_challenges').where('id', '=', row.id).executeTakeFirst();
  // Another request took it first: for this one it is gone.
  if (Number(deleted.numDeletedRows) !== 1) return undefined;
  return { challenge: row.challenge, expired: row.expires_at <= ctx.clock.now() };
}

/** GET /api/user/mfa/passkey/options: creation options for the browser; the challenge is kept for the user. */
export async function registrationOptions(
  ctx: AppContext,
  user: UserRow,
  rp: RelyingParty,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  assertPasskeysAllowed(ctx);
  const existing = (await listPasskeys(ctx, user.id)).map(parseRegistration).filter((r) => r !== null);
  const options = await (
    await loadWebAuthn()
  ).generateRegistrationOptions({
    rpName: ctx.settings.get().siteTitle,
    rpID: rp.id,
    userName: user.username,
    userID: new TextEncoder().encode(user.id),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((r) => ({ id: r.webauthn.id, transports: r.webauthn.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
  await storeChallenge(ctx, 'register', user.id, options.challenge);
  return options;
}

/**
 * POST /api/user/mfa/passkey: verifies the browser's answer to the latest options and stores the passkey.
 * No options asked for -> 1046, no response -> 1047, options older than CHALLENGE_TTL_MS -> 1048, a response the
 * verification rejects -> 1049, an attestation whose signature does not hold -> 1050.
 */
export async function registerPasskey(
  ctx: AppContext,
  user: UserRow,
  rp: RelyingParty,
  input: { response?: RegistrationResponseJSON | undefined; name: string },
): Promise<PasskeyRow> {
  assertPasskeysAllowed(ctx);
  if (!input.response) throw new ApiError(1047);
  const taken = await takeChallenge(ctx, { userId: user.id }, 'register');
  if (!taken) throw new ApiError(1046);
  if (taken.expired) throw new ApiError(1048);
  const webauthn = await loadWebAuthn();
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await webauthn.verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: taken.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
  } catch (err) {
    throw new ApiError(1049, (err as Error).message, { cause: err });
  }
  if (!verification.verified) throw new ApiError(1050);
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  const reg: StoredRegistration = {
    webauthn: {
      id: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports,
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
    },
  };
  const now = ctx.clock.now();
  const row: PasskeyRow = {
    id: newId(),
    user_id: user.id,
    name: input.name,
    reg: JSON.stringify(reg),
    credential_id: credential.id,
    last_used: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await ctx.db.insertInto('passkeys').values(row).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(1050, 'this passkey is already registered');
    throw err;
  }
  return row;
}

/** PATCH /api/user/mfa/passkey: renames one of the user's passkeys (someone else's or unknown -> 9002). */
export async function renamePasskey(ctx: AppContext, userId: string, id: string, name: string): Promise<PasskeyRow> {
  assertPasskeysAllowed(ctx);
  const now = ctx.clock.now();
  const result = await ctx.db
    .updateTable('passkeys')
    .set({ name, updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new ApiError(9002, 'passkey not found');
  return ctx.db.selectFrom('passkeys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** DELETE /api/user/mfa/passkey: removes one of the user's passkeys (someone else's or unknown -> 9002). */
export async function removePasskey(ctx: AppContext, userId: string, id: string): Promise<PasskeyRow> {
  assertPasskeysAllowed(ctx);
  const row = await ctx.db
    .selectFrom('passkeys')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new ApiError(9002, 'passkey not found');
  await ctx.db.deleteFrom('passkeys').where('id', '=', id).execute();
  return row;
}

/** GET /api/auth/webauthn/options: request options for any passkey of this site, under a challenge id. */
export async function loginOptions(
  ctx: AppContext,
  rp: RelyingParty,
): Promise<{ id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  assertPasskeysAllowed(ctx);
  const options = await (
    await loadWebAuthn()
  ).generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'preferred',
  });
  return { id: await storeChallenge(ctx, 'login', null, options.challenge), options };
}

/**
 * Verifies a passkey assertion against the login challenge `challengeId`; returns the passkey's user.
 * No challenge id (or an unknown, used or expired one) -> 1046, no response -> 1047, a passkey stored in a legacy
 * format -> 1060, a response the verification rejects (wrong challenge, origin, RP, a signature counter that did
 * not move forward, no user verification when `requireUserVerification`) -> 1051, an unknown passkey or a bad
 * signature -> 1052. Sets the passkey's lastUsed and stored counter.
 */
export async function verifyPasskeyAssertion(
  ctx: AppContext,
  rp: RelyingParty,
  input: { challengeId?: string | undefined; response?: AuthenticationResponseJSON | undefined },
  options: { requireUserVerification: boolean },
): Promise<UserRow> {
  assertPasskeysAllowed(ctx);
  if (!input.challengeId) throw new ApiError(1046);
  if (!input.response) throw new ApiError(1047);
  const taken = await takeChallenge(ctx, { id: input.challengeId }, 'login');
  if (!taken || taken.expired) throw new ApiError(1046, 'the challenge is unknown, used or expired');
  const passkey = await ctx.db
    .selectFrom('passkeys')
    .selectAll()
    .where('credential_id', '=', String(input.response.id))
    .executeTakeFirst();
  if (!passkey) throw new ApiError(1052, 'unknown passkey');
  const reg = parseRegistration(passkey);
  if (!reg) throw new ApiError(1060);
  const userHandle = input.response.response?.userHandle;
  if (userHandle && Buffer.from(userHandle, 'base64url').toString('utf8') !== passkey.user_id) {
    throw new ApiError(1052, 'the passkey belongs to another account');
  }
  const webauthn = await loadWebAuthn();
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await webauthn.verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: taken.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: reg.webauthn.id,
        publicKey: Buffer.from(reg.webauthn.publicKey, 'base64url'),
        counter: reg.webauthn.counter,
        transports: reg.webauthn.transports,
      },
      requireUserVerification: options.requireUserVerification,
    });
  } catch (err) {
    throw new ApiError(1051, (err as Error).message, { cause: err });
  }
  if (!verification.verified) throw new ApiError(1052);
  const now = ctx.clock.now();
  const next: StoredRegistration = {
    webauthn: { ...reg.webauthn, counter: verification.authenticationInfo.newCounter },
  };
  // Conditional on the registration data read above: of two assertions racing with one counter value, one wins.
  const updated = await ctx.db
    .updateTable('passkeys')
    .set({ reg: JSON.stringify(next), last_used: now })
    .where('id', '=', passkey.id)
    .where('reg', '=', passkey.reg)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw new ApiError(1051, 'the passkey was used at the same time');
  const user = await ctx.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', passkey.user_id)
    .where(userNotDeleted('users.id'))
    .executeTakeFirst();
  if (!user) throw new ApiError(1052);
  return user;
}

/**
 * Signing in with a passkey alone: it must verify its user (PIN, biometrics), standing for both steps of a password
 * login (verifyPasskeyAssertion's errors); its user is signed in.
 */
export async function signInWithPasskey(
  ctx: AppContext,
  rp: RelyingParty,
  input: { challengeId?: string | undefined; response?: AuthenticationResponseJSON | undefined },
  origin: SessionOrigin,
): Promise<SignedIn> {
  return signIn(ctx, await verifyPasskeyAssertion(ctx, rp, input, { requireUserVerification: true }), origin);
}

export async function hasPasskeys(ctx: AppContext, userId: string): Promise<boolean> {
  const row = await ctx.db.selectFrom('passkeys').select('id').where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

function parseRegistration(row: PasskeyRow): StoredRegistration | null {
  try {
    const value = JSON.parse(row.reg) as Partial<StoredRegistration> | null;
    const w = value?.webauthn;
    if (!w || typeof w.id !== 'string' || typeof w.publicKey !== 'string' || typeof w.counter !== 'number') {
      return null;
    }
    return value as StoredRegistration;
  } catch {
    return null;
  }
}

/** An imported passkey, in the import's transaction. */
export async function insertImportedPasskey(db: Db, row: PasskeyRow): Promise<void> {
  await db.insertInto('passkeys').values(row).execute();
}
