// A WebAuthn authenticator in software, for API tests of every passkey error: a real P-256 key pair, real CBOR
// (the encoder @simplewebauthn/server itself uses) and real ECDSA signatures, with knobs for the failures a browser
// never produces on purpose (bad signatures, a counter going back, no user verification). The end-to-end tests in
// Chromium (test/web/passkeys.test.ts) use the browser's own virtual authenticator instead.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface CeremonyOptions {
  /** Default: true. */
  userVerified?: boolean;
  /** The origin the "browser" reports; default the authenticator's. */
  origin?: string;
  /** Replace the signature (assertion) or the packed attestation signature (registration) by random bytes. */
  badSignature?: boolean;
  /** Use this counter value instead of the next one. */
  counter?: number;
  /** The COSE algorithm the registered key announces (registration); default ES256 (-7), what the key is. */
  keyAlgorithm?: number;
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16).toString('base64url');
  counter = 0;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  /** The user handle registration gave (base64url). */
  userHandle: string | undefined;

  constructor(
    readonly origin: string,
    readonly rpId: string = new URL(origin).hostname,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  /** The answer of navigator.credentials.create() to `options` (RegistrationResponseJSON). */
  register(options: { challenge: string; user: { id: string } }, ceremony: CeremonyOptions = {}) {
    this.userHandle = options.user.id;
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, ceremony.keyAlgorithm ?? -7],
      [-1, 1],
      [-2, Buffer.from(this.publicJwk.x, 'base64url')],
      [-3, Buffer.from(this.publicJwk.y, 'base64url')],
    ]);
    const credentialId = Buffer.from(this.credentialId, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      this.authDataHead(FLAG_UP | FLAG_AT | (ceremony.userVerified === false ? 0 : FLAG_UV), 0),
      Buffer.alloc(16), // AAGUID
      idLength,
      credentialId,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, ceremony);
    const attestation = ceremony.badSignature
      ? new Map<string, unknown>([
          ['fmt', 'packed'],
          [
            'attStmt',
            new Map<string, unknown>([
              ['alg', -7],
              ['sig', randomSignature()],
            ]),
          ],
          ['authData', authData],
        ])
      : new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: Buffer.from(isoCBOR.encode(attestation as never)).toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** The answer of navigator.credentials.get() to `options` (AuthenticationResponseJSON). */
  authenticate(options: { challenge: string }, ceremony: CeremonyOptions = {}) {
    const counter = ceremony.counter ?? ++this.counter;
    const authData = this.authDataHead(FLAG_UP | (ceremony.userVerified === false ? 0 : FLAG_UV), counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, ceremony);
    const signed = Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]);
    const signature = ceremony.badSignature ? randomSignature() : sign('sha256', signed, this.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }

  private authDataHead(flags: number, counter: number): Buffer {
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    return Buffer.concat([createHash('sha256').update(this.rpId).digest(), Buffer.from([flags]), counterBytes]);
  }

  private clientData(type: string, challenge: string, ceremony: CeremonyOptions): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: ceremony.origin ?? this.origin, crossOrigin: false }));
  }
}

/** A well-formed DER ECDSA signature of random values: parses, never verifies. */
function randomSignature(): Buffer {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return sign('sha256', randomBytes(32), privateKey);
}
