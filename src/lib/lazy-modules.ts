// Libraries that only some requests or settings need, loaded by the first of them instead of at start-up: together
// about 40 MiB of the idle server's memory (measured 2026-11-26: passkeys 15 MiB, Redis 11, images 8, OpenID 4.5), a
// fifth of what the small box it runs on may hold, and all of it in the peak of a large upload. The first use pays the
// load once (tens of milliseconds); a failed load is tried again by the next use.

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load().catch((err: unknown) => {
      loaded = undefined;
      throw err;
    });
    return loaded;
  };
}

/** sharp, with its cache off: decoded images are not kept between calls (memory follows the images in work). */
export const loadSharp = once(async () => {
  const { default: sharp } = await import('sharp');
  sharp.cache(false);
  return sharp;
});

/** @simplewebauthn/server (passkeys). */
export const loadWebAuthn = once(() => import('@simplewebauthn/server'));

/** openid-client (OpenID Connect logins). */
export const loadOpenIdClient = once(() => import('openid-client'));

/** ldapts (LDAP sign-in, LDAP_URL). */
export const loadLdapts = once(() => import('ldapts'));

/** ioredis's client class (REDIS_URL). */
export const loadRedis = once(async () => (await import('ioredis')).Redis);
