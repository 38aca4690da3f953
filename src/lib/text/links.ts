// The links Chute hands out. `base` is the public origin (PUBLIC_URL, the request's host or the upload's
// x-service-domain; '' for a path on this host); the file and URL prefixes are the admin's `filesRoute` and
// `urlsRoute` settings, passed in by the caller.

/**
 * The name a file's links use: its extensionless name when its upload was handed a link without the extension
 * (abc for abc.png), else its name.
 */
export function linkNameOf(file: { name: string; extensionless_name: string | null }): string {
  return file.extensionless_name ?? file.name;
}

/** The share link of a stored file: <base><filesRoute>/<name>. */
export function fileLink(routes: { filesRoute: string }, base: string, name: string): string {
  return `${base}${routes.filesRoute}/${encodeURIComponent(name)}`;
}

/** The redirect link of a short URL: <base><urlsRoute>/<code or vanity>. */
export function urlLink(routes: { urlsRoute: string }, base: string, codeOrVanity: string): string {
  return `${base}${routes.urlsRoute}/${encodeURIComponent(codeOrVanity)}`;
}

/**
 * The raw bytes of a stored file: <base>/raw/<name>, with a password unlock `token` and/or `download` (serve as an
 * attachment) in the query when given.
 */
export function rawLink(base: string, name: string, options: { token?: string; download?: boolean } = {}): string {
  const query = [
    ...(options.token ? [`token=${encodeURIComponent(options.token)}`] : []),
    ...(options.download ? ['download'] : []),
  ];
  return `${base}/raw/${encodeURIComponent(name)}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** A share link of a file (file_shares): <base>/s/<id>. */
export function shareLink(base: string, shareId: string): string {
  return `${base}/s/${encodeURIComponent(shareId)}`;
}

/** The bytes behind a share link: <base>/s/<id>/raw, with the link's unlock `token` and/or `download`. */
export function shareRawLink(
  base: string,
  shareId: string,
  options: { token?: string | undefined; download?: boolean } = {},
): string {
  const query = [
    ...(options.token ? [`token=${encodeURIComponent(options.token)}`] : []),
    ...(options.download ? ['download'] : []),
  ];
  return `${shareLink(base, shareId)}/raw${query.length > 0 ? `?${query.join('&')}` : ''}`;
}
