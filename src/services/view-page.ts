// The server-rendered view page of a file (/view/<name>, and /u/<name> for browsers when the owner turned the view
// page on): the file shown inline when it is an image, video, audio or text, with OpenGraph/Twitter embed tags as the
// owner's view settings ask. Every value is escaped; the only script is our own, allowed by a per-page nonce.
import { randomBytes } from 'node:crypto';
import { toIso } from '../lib/clock.js';
import { html, joinHtml, SafeHtml } from '../lib/html.js';
import { mediaKind, type MediaKind } from '../lib/media-types.js';
import { formatByteSize } from '../lib/sizes.js';
import type { UserViewSettings } from '../schemas/user.js';
import type { ServedFile } from './file-serving.js';

/** Bytes of a text file shown on its page. */
export const TEXT_PREVIEW_BYTES = 64 * 1024;

export interface ViewPageInput {
  file: ServedFile;
  view: UserViewSettings;
  siteTitle: string;
  /** Absolute base URL (for embed tags). */
  baseUrl: string;
  /** Access token of a password-protected file, appended to the raw links. */
  token?: string | undefined;
  /** The start of a text file, when it is shown. */
  text?: string | undefined;
  /** Whether the text was cut at TEXT_PREVIEW_BYTES. */
  textTruncated?: boolean;
}

export interface RenderedPage {
  html: string;
  /** The Content-Security-Policy of the page (its script nonce). */
  csp: string;
}

function pageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "img-src 'self' data:",
    "media-src 'self'",
    "style-src 'unsafe-inline'",
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** {file.name}-style placeholders of the embed texts. */
function fillPlaceholders(template: string, file: ServedFile): string {
  const values: Record<string, string> = {
    'file.name': file.name,
    'file.originalName': file.original_name ?? file.name,
    'file.size': formatByteSize(file.size),
    'file.type': file.type,
    'file.views': String(file.views),
    'file.createdAt': toIso(file.created_at),
  };
  return template.replace(/\{(file\.[a-zA-Z]+)\}/g, (whole, key: string) => values[key] ?? whole);
}

function rawPath(file: ServedFile, token: string | undefined, download = false): string {
  const query = [...(token ? [`token=${encodeURIComponent(token)}`] : []), ...(download ? ['download'] : [])];
  return `/raw/${encodeURIComponent(file.name)}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

function embedTags(input: ViewPageInput, kind: MediaKind): SafeHtml {
  const { view, file } = input;
  if (!view.embed) return new SafeHtml('');
  const isMedia = kind === 'image' || kind === 'video' || kind === 'audio';
  if (view.embedMediaOnly && !isMedia) return new SafeHtml('');
  const raw = `${input.baseUrl}${rawPath(file, input.token)}`;
  const tags: SafeHtml[] = [];
  const title = view.embedTitle ? fillPlaceholders(view.embedTitle, file) : null;
  const description = view.embedDescription ? fillPlaceholders(view.embedDescription, file) : null;
  const siteName = view.embedSiteName ? fillPlaceholders(view.embedSiteName, file) : input.siteTitle;
  if (title) tags.push(html`<meta property="og:title" content="${title}"><meta name="twitter:title" content="${title}">`);
  if (description) {
    tags.push(html`<meta property="og:description" content="${description}"><meta name="twitter:description" content="${description}">`);
  }
  tags.push(html`<meta property="og:site_name" content="${siteName}">`);
  if (view.embedColor && /^#[0-9a-fA-F]{3,8}$/.test(view.embedColor)) tags.push(html`<meta name="theme-color" content="${view.embedColor}">`);
  tags.push(html`<meta property="og:url" content="${`${input.baseUrl}/view/${encodeURIComponent(file.name)}`}">`);
  if (kind === 'image') {
    tags.push(html`<meta property="og:type" content="website"><meta property="og:image" content="${raw}"><meta property="og:image:type" content="${file.type}"><meta name="twitter:card" content="summary_large_image"><meta name="twitter:image" content="${raw}">`);
  } else if (kind === 'video') {
    tags.push(html`<meta property="og:type" content="video.other"><meta property="og:video" content="${raw}"><meta property="og:video:type" content="${file.type}"><meta name="twitter:card" content="player"><meta name="twitter:player:stream" content="${raw}">`);
  } else if (kind === 'audio') {
    tags.push(html`<meta property="og:type" content="music.song"><meta property="og:audio" content="${raw}"><meta property="og:audio:type" content="${file.type}"><meta name="twitter:card" content="summary">`);
  } else {
    tags.push(html`<meta property="og:type" content="website"><meta name="twitter:card" content="summary">`);
  }
  return joinHtml(tags);
}

function layout(title: string, head: SafeHtml, body: SafeHtml, nonce: string, align: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>${head}
<style nonce="${nonce}">
body{margin:0;font:15px/1.5 system-ui,sans-serif;background:#111;color:#eee}
main{max-width:1100px;margin:0 auto;padding:24px;text-align:${align}}
img,video{max-width:100%;max-height:80vh}
pre{text-align:left;background:#1c1c1c;padding:16px;overflow:auto;white-space:pre-wrap;word-break:break-word}
a{color:#8ab4f8}.meta{color:#aaa;font-size:13px}
</style></head>
<body><main>${body}</main></body></html>
`.value;
}

/** The view page of a file the visitor may see. */
export function renderViewPage(input: ViewPageInput): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const { file, view } = input;
  const kind = mediaKind(file.type);
  const src = rawPath(file, input.token);
  let content: SafeHtml;
  if (kind === 'image') content = html`<img src="${src}" alt="${file.name}">`;
  else if (kind === 'video') content = html`<video src="${src}" controls preload="metadata"></video>`;
  else if (kind === 'audio') content = html`<audio src="${src}" controls preload="metadata"></audio>`;
  else if (kind === 'text' && input.text !== undefined && !view.disableTextFiles) {
    content = html`<pre>${input.text}</pre>${input.textTruncated ? html`<p class="meta">(the first ${formatByteSize(TEXT_PREVIEW_BYTES)} are shown)</p>` : ''}`;
  } else content = html`<p>${file.name} (${formatByteSize(file.size)})</p>`;
  const displayName = file.original_name ?? file.name;
  const body = html`<h1>${displayName}</h1>
${view.content ? html`<p>${fillPlaceholders(view.content, file)}</p>` : ''}
${content}
<p class="meta">${formatByteSize(file.size)}${view.showMimetype ? html` · ${file.type}` : ''} · <a href="${rawPath(file, input.token, true)}">download</a></p>`;
  const align = view.align === 'left' || view.align === 'right' ? view.align : 'center';
  return { html: layout(displayName, embedTags(input, kind), body, nonce, align), csp: pageCsp(nonce) };
}

/** The page a browser gets for a password-protected file: a form that trades the password for an access token. */
export function renderPasswordPage(file: Pick<ServedFile, 'name'>, siteTitle: string, target: 'view' | 'raw'): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const script = new SafeHtml(`
const form = document.getElementById('unlock');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const res = await fetch(${JSON.stringify(`/api/user/files/${encodeURIComponent(file.name)}/password`).replace(/</g, '\\u003c')}, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: form.password.value }),
  });
  if (!res.ok) { document.getElementById('error').textContent = 'Wrong password.'; return; }
  const { token } = await res.json();
  location.href = ${JSON.stringify(`/${target}/${encodeURIComponent(file.name)}?token=`).replace(/</g, '\\u003c')} + encodeURIComponent(token);
});`);
  const body = html`<h1>${file.name}</h1><p>This file is password protected.</p>
<form id="unlock"><input type="password" name="password" autocomplete="current-password" required autofocus>
<button type="submit">Open</button></form><p id="error" class="meta"></p>
<script nonce="${nonce}">${script}</script>`;
  return { html: layout(`${file.name} · ${siteTitle}`, new SafeHtml('<meta name="robots" content="noindex">'), body, nonce, 'center'), csp: pageCsp(nonce) };
}
