// Uploader configurations made in the browser from the user's API token and chosen options: ShareX custom uploaders
// (.sxcu) for files and for short URLs, and a shell script for Flameshot or any file. The requests are exactly the
// API's: POST /api/upload (multipart parts named `file`, options in x-service-* headers, src/http/uploads/headers.ts)
// and POST /api/user/urls ({destination} JSON, max views and password in headers, src/routes/links/urls.ts).
import { EXPIRY_PRESETS } from '../../lib/expiry';
import { NAME_FORMATS, nameFormatWithExample } from '../../lib/name-formats';

/** File name formats of x-service-format; '' leaves the server's default. */
export const NAME_FORMAT_CHOICES: ReadonlyArray<{ value: string; label: string }> = [
  { value: '', label: "Server's default" },
  ...NAME_FORMATS.map((f) => ({ value: f.value, label: nameFormatWithExample(f) })),
];

/** Expiry choices of x-service-deletes-at, as how long each upload lives; '' leaves the server's default expiry. */
export const EXPIRY_CHOICES: ReadonlyArray<{ value: string; label: string }> = [
  { value: '', label: "Server's default" },
  { value: 'never', label: 'Never' },
  ...EXPIRY_PRESETS.map((p) => ({ value: p.value, label: p.label })),
  { value: '1y', label: '1 year' },
];

export interface FileUploadOptions {
  format: string;
  expiry: string;
  /** Sent either way (x-service-original-name: true or false); starts as the server's filesKeepOriginalName. */
  keepOriginalName: boolean;
  /** Links without the extension (x-service-extensionless); null leaves the server's setting to decide. */
  extensionless: boolean | null;
  /** Delete each file after this many views; '' for no limit. */
  maxViews: string;
  folderId: string;
  password: string;
}

export interface UrlShortenOptions {
  /** The short link stops working after this many visits; '' for no limit. */
  maxViews: string;
  password: string;
}

export interface UploaderTarget {
  /** The server's address as the browser sees it, such as https://files.example.com. */
  origin: string;
  siteTitle: string;
  username: string;
  token: string;
}

export const DEFAULT_FILE_OPTIONS: FileUploadOptions = {
  format: '',
  expiry: '',
  keepOriginalName: true,
  extensionless: null,
  maxViews: '',
  folderId: '',
  password: '',
};

export const DEFAULT_URL_OPTIONS: UrlShortenOptions = { maxViews: '', password: '' };

/** The file options of a new configuration: the server's defaults, the original name's from the server itself. */
export function defaultFileOptions(serverKeepsOriginalName: boolean): FileUploadOptions {
  return { ...DEFAULT_FILE_OPTIONS, keepOriginalName: serverKeepsOriginalName };
}

/**
 * The x-service-* headers for the chosen file options: those that differ from the server's defaults, and the original
 * name's always, so that the configuration does what its maker saw even after an admin changes the default.
 */
export function fileUploadHeaders(options: FileUploadOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.format) headers['x-service-format'] = options.format;
  if (options.expiry) headers['x-service-deletes-at'] = options.expiry;
  headers['x-service-original-name'] = String(options.keepOriginalName);
  if (options.extensionless !== null) headers['x-service-extensionless'] = String(options.extensionless);
  if (options.maxViews.trim()) headers['x-service-max-views'] = options.maxViews.trim();
  if (options.folderId) headers['x-service-folder'] = options.folderId;
  if (options.password) headers['x-service-password'] = options.password;
  return headers;
}

export function urlShortenHeaders(options: UrlShortenOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.maxViews.trim()) headers['x-service-max-views'] = options.maxViews.trim();
  if (options.password) headers['x-service-password'] = options.password;
  return headers;
}

/** A whole number of at least 1, or empty: what the server accepts as x-service-max-views. */
export function maxViewsProblem(text: string): string | null {
  const value = text.trim();
  if (value === '') return null;
  return /^\d{1,9}$/.test(value) && Number(value) >= 1
    ? null
    : 'Enter a whole number of at least 1, or leave it empty.';
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

/** A file-name-safe form of the server's host, for the downloaded files' names. */
export function fileSlug(origin: string): string {
  return (
    hostOf(origin)
      .replace(/[^A-Za-z0-9.-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'chute'
  );
}

const SHAREX_VERSION = '17.0.0';

/** ShareX custom uploader for files: ShareX sends the file as the multipart part `file` and reads the link back. */
export function shareXFileUploader(target: UploaderTarget, options: FileUploadOptions): string {
  const config = {
    Version: SHAREX_VERSION,
    Name: `${target.siteTitle} (${hostOf(target.origin)}): files`,
    DestinationType: 'ImageUploader, TextUploader, FileUploader',
    RequestMethod: 'POST',
    RequestURL: `${target.origin}/api/upload`,
    Headers: { authorization: target.token, ...fileUploadHeaders(options) },
    Body: 'MultipartFormData',
    FileFormName: 'file',
    URL: '{json:files[0].url}',
    ErrorMessage: '{json:error}',
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** ShareX custom uploader for short URLs: {input} is the URL ShareX was asked to shorten. */
export function shareXUrlShortener(target: UploaderTarget, options: UrlShortenOptions): string {
  const config = {
    Version: SHAREX_VERSION,
    Name: `${target.siteTitle} (${hostOf(target.origin)}): short URLs`,
    DestinationType: 'URLShortener, URLSharingService',
    RequestMethod: 'POST',
    RequestURL: `${target.origin}/api/user/urls`,
    Headers: { authorization: target.token, ...urlShortenHeaders(options) },
    Body: 'JSON',
    Data: JSON.stringify({ destination: '{input}' }),
    URL: '{json:url}',
    ErrorMessage: '{json:error}',
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** A single-quoted shell word (any text, quotes included). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A bash script that uploads the files given as arguments, or without any a Flameshot capture (flameshot gui --raw),
 * prints the links and copies them with wl-copy or xclip when one is there. The server answers plain links
 * (x-service-no-json), so the script needs nothing but curl.
 */
export function flameshotScript(target: UploaderTarget, options: FileUploadOptions): string {
  const headers = Object.entries(fileUploadHeaders(options)).map(
    ([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`,
  );
  return `#!/usr/bin/env bash
# Uploads to ${target.siteTitle.replace(/[\r\n]+/g, ' ')} (${target.origin}) as ${target.username.replace(/[\r\n]+/g, ' ')}.
#   chute-upload.sh FILE...   uploads the files
#   chute-upload.sh           takes a screenshot with Flameshot (flameshot gui) and uploads it
# Prints the links and copies them to the clipboard when wl-copy (Wayland) or xclip (X11) is installed.
# This script holds your API token: keep it private (chmod 700). Regenerating the token stops it working.
set -euo pipefail

CHUTE_URL=${shellQuote(target.origin)}
CHUTE_TOKEN=${shellQuote(target.token)}
HEADERS=(
  -H "authorization: \${CHUTE_TOKEN}"
  -H 'x-service-no-json: true'
${headers.join('\n')}${headers.length > 0 ? '\n' : ''})

fail() { echo "chute-upload: $*" >&2; exit 1; }
command -v curl >/dev/null || fail 'curl is not installed'

FORM=()
SHOT=''
trap 'if [ -n "$SHOT" ]; then rm -f "$SHOT"; fi' EXIT
if [ "$#" -eq 0 ]; then
  command -v flameshot >/dev/null || fail 'flameshot is not installed; name the files to upload instead'
  SHOT=$(mktemp)
  # An empty capture means the selection was cancelled: upload nothing.
  flameshot gui --raw > "$SHOT" || true
  [ -s "$SHOT" ] || fail 'no screenshot was taken'
  FORM+=(-F "file=@\${SHOT};type=image/png;filename=screenshot-$(date +%Y-%m-%d_%H-%M-%S).png")
else
  for path in "$@"; do
    [ -f "$path" ] || fail "not a file: $path"
    # Quoted for curl, so that names with commas or semicolons are read whole.
    quoted=\${path//\\\\/\\\\\\\\}
    quoted=\${quoted//\\"/\\\\\\"}
    FORM+=(-F "file=@\\"\${quoted}\\"")
  done
fi

if ! LINKS=$(curl -sS --fail-with-body "\${HEADERS[@]}" "\${FORM[@]}" "\${CHUTE_URL}/api/upload"); then
  fail "the upload failed: \${LINKS}"
fi
LINKS=\${LINKS%$'\\n'}
printf '%s\\n' "$LINKS"
if [ -n "\${WAYLAND_DISPLAY:-}" ] && command -v wl-copy >/dev/null; then
  printf '%s' "$LINKS" | wl-copy
elif [ -n "\${DISPLAY:-}" ] && command -v xclip >/dev/null; then
  printf '%s' "$LINKS" | xclip -selection clipboard
fi
`;
}

/** Offers text as a file download (Blob + a temporary <a download>). */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled; revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
