// Short URLs as the URLs page sees them (src/routes/links/urls.ts), and the API's refusals turned into form field errors.
import { ApiRequestError, request, type ApiBody } from '../../api/client';
import type { components } from '../../api/openapi';
import { errorMessage } from '../../lib/notify';

export type ShortUrl = components['schemas']['Url'];

export interface NewShortUrl {
  destination: string;
  vanity?: string;
  enabled: boolean;
  maxViews?: number;
  password?: string;
}

/** PATCH body: a missing property stays as it is, null clears vanity, maxViews or password. */
export type ShortUrlPatch = ApiBody<'/api/user/urls/{id}', 'patch'>;

export const URLS_PER_PAGE = 20;

export function listUrls(query: { page: number; search: string }, signal: AbortSignal) {
  // With page the server answers a page object (without, Zipline's plain array).
  return request('get', '/api/user/urls', {
    signal,
    query: { page: query.page, perPage: URLS_PER_PAGE, searchQuery: query.search || undefined },
  }).then((answer) => {
    if (Array.isArray(answer)) throw new Error('the server answered a list without pages');
    return answer;
  });
}

/** Max views and the password travel as headers on this endpoint (the same ones ShareX sends). */
export function shortenUrl(input: NewShortUrl): Promise<ShortUrl> {
  const headers: Record<string, string> = {};
  if (input.maxViews !== undefined) headers['x-service-max-views'] = String(input.maxViews);
  if (input.password) headers['x-service-password'] = input.password;
  return request('post', '/api/user/urls', {
    headers,
    body: { destination: input.destination, vanity: input.vanity, enabled: input.enabled },
  });
}

export function updateUrl(id: string, patch: ShortUrlPatch): Promise<ShortUrl> {
  return request('patch', '/api/user/urls/{id}', { params: { id }, body: patch });
}

export function deleteUrl(id: string): Promise<ShortUrl> {
  return request('delete', '/api/user/urls/{id}', { params: { id } });
}

/**
 * What a person typed as a destination, made into the absolute link the server wants: "example.com/page" is taken
 * to mean https://example.com/page. Returns an error sentence instead when it cannot be a web address.
 */
function normaliseDestination(input: string): { value: string } | { error: string } {
  const text = input.trim();
  if (!text) return { error: 'Enter the address the short link should lead to.' };
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    return { error: 'That is not a web address. It should look like https://example.com/page.' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { error: 'Only web addresses (http:// or https://) can be shortened.' };
  }
  if (!parsed.hostname.includes('.') && parsed.hostname !== 'localhost') {
    return { error: 'That address has no domain. It should look like https://example.com/page.' };
  }
  return { value: parsed.href };
}

const VANITY_RE = /^[A-Za-z0-9._~-]{1,64}$/;
const VANITY_RULE = 'Use up to 64 letters, digits, dots, dashes, underscores or tildes (no spaces or slashes).';

/** The same rule as the server's: one path segment of letters, digits and . _ ~ - */
function vanityError(vanity: string): string | null {
  if (!vanity) return null;
  return !VANITY_RE.test(vanity) || vanity === '.' || vanity === '..' ? VANITY_RULE : null;
}

export type UrlFieldErrors = Partial<Record<'destination' | 'vanity' | 'maxViews' | 'password', string>>;

/** What the shorten and edit forms check before sending: the destination made absolute, the custom name (null: none). */
export function checkUrlFields(input: {
  destination: string;
  vanity: string;
}): { destination: string; vanity: string | null; errors?: undefined } | { errors: UrlFieldErrors } {
  const destination = normaliseDestination(input.destination);
  const vanity = input.vanity.trim();
  const errors: UrlFieldErrors = {};
  if ('error' in destination) errors.destination = destination.error;
  const badVanity = vanityError(vanity);
  if (badVanity) errors.vanity = badVanity;
  if ('error' in destination || badVanity) return { errors };
  return { destination: destination.value, vanity: vanity || null };
}

/** Which form field an API refusal is about, in words; null when it is not about one field. */
export function urlFieldError(err: unknown): { field: 'destination' | 'vanity' | 'maxViews'; message: string } | null {
  if (!(err instanceof ApiRequestError)) return null;
  if (err.code === 1041 || err.code === 1042) return { field: 'vanity', message: err.message };
  const text = err.serverText ?? '';
  if (err.code === 1000 && text.includes('destination')) {
    return { field: 'destination', message: 'Only web addresses (http:// or https://) can be shortened.' };
  }
  if (err.code === 1000 && text.includes('vanity')) return { field: 'vanity', message: VANITY_RULE };
  if (err.code === 1001 && text.includes('max-views'))
    return { field: 'maxViews', message: 'Enter a whole number of 1 or more.' };
  return null;
}

/** A refusal in words, for what is not about one field (a link deleted meanwhile in another tab; the quota is in the
 * shared table). */
export function urlErrorMessage(err: unknown): string {
  if (err instanceof ApiRequestError && err.code === 9002)
    return 'That short link no longer exists. Reload the page to see your links as they are now.';
  return errorMessage(err);
}

/** "3", or "3 of 10" when the link has a visit limit. */
export function visitsText(url: Pick<ShortUrl, 'views' | 'maxViews'>): string {
  return url.maxViews === null ? String(url.views) : `${url.views} of ${url.maxViews}`;
}
