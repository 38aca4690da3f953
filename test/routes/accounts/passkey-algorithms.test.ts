// The public key algorithms of passkeys are Chute's choice, not @simplewebauthn/server's default: that default puts
// ML-DSA-44 first wherever Web Crypto has it (Node 24, as an experimental algorithm that logs an ExperimentalWarning).
// Registration offers exactly EdDSA, ES256 and RS256, and refuses a key of any other algorithm.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT, superadminOf } from '../../support/factory.js';
import { forEachDatabase, useTestServer } from '../../support/server.js';
import { SoftAuthenticator } from '../../support/webauthn.js';

const ML_DSA_44 = -48;

// Node 20 has no SubtleCrypto.supports(); where it is missing, this file gives it one that answers as Node 24's
// does for ML-DSA-44, the probe @simplewebauthn/server makes to pick its default algorithms. Restored afterwards.
const subtle = (globalThis as unknown as { SubtleCrypto: object }).SubtleCrypto as {
  supports?: (operation: string, algorithm: unknown) => boolean;
};
const nativeSupports = Object.getOwnPropertyDescriptor(subtle, 'supports');
before(() => {
  if (nativeSupports) return;
  Object.defineProperty(subtle, 'supports', {
    configurable: true,
    value: (operation: string, algorithm: unknown) => operation === 'verify' && algorithm === 'ML-DSA-44',
  });
});
after(() => {
  if (!nativeSupports) delete subtle.supports;
});

forEachDatabase('passkey algorithms', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  before(async () => {
    await superadminOf(server());
  });

  it('offers exactly EdDSA, ES256 and RS256, even where Web Crypto has ML-DSA-44', async () => {
    assert.equal(subtle.supports?.('verify', 'ML-DSA-44'), true, 'this runtime offers ML-DSA-44');
    const user = await makeUser(server());
    const options = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    assert.equal(options.status, 200, JSON.stringify(options.body));
    assert.deepEqual(options.body.pubKeyCredParams, [
      { alg: -8, type: 'public-key' },
      { alg: -7, type: 'public-key' },
      { alg: -257, type: 'public-key' },
    ]);
  });

  it('refuses to register a key of an algorithm it did not offer (1049), and registers an ES256 one', async () => {
    const user = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    const ask = async () =>
      (await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token })).body as {
        challenge: string;
        user: { id: string };
      };
    const refused = await server().json('POST', '/api/user/mfa/passkey', {
      auth: user.token,
      body: { response: authenticator.register(await ask(), { keyAlgorithm: ML_DSA_44 }), name: 'PQC' },
    });
    assertError(refused, 400, 1049);
    assert.match(refused.body.error, /-48/);
    const list = await server().json('GET', '/api/user/mfa/passkey', { auth: user.token });
    assert.deepEqual(list.body, [], 'nothing was stored');

    const res = await server().json('POST', '/api/user/mfa/passkey', {
      auth: user.token,
      body: { response: authenticator.register(await ask()), name: 'Laptop' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});
