// The server-rendered view page of a file (/view/<name>, and /u/<name> for browsers when the owner turned the view
// page on): the file shown inline when it is an image, video, audio or text, its size, type and date, a download
// button, and OpenGraph/Twitter embed tags as the owner's view settings ask. Every value is escaped; nothing runs.
import { toIso } from '../lib/clock.js';
import { html, joinHtml, SafeHtml } from '../lib/formats/html.js';
import { mediaKind, type MediaKind } from '../lib/formats/media-types.js';
import { rawLink } from '../lib/text/links.js';
import { formatByteSize } from '../lib/text/sizes.js';
import { colorDot, fileIconName, icon } from './icons.js';
import { formatDay, renderPage, type RenderedPage } from './layout.js';
import { renderPasswordPage as renderPasswordForm, unlockFailure } from './password-page.js';
import type { UserViewSettings } from '../schemas/user.js';
import type { ServedFile, ViewPageFolder, ViewPageTag } from '../services/serving/files.js';

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
  /** The file's tags, when the owner shows them (view.showTags). */
  tags?: ViewPageTag[] | undefined;
  /** The file's folder, when the owner shows it (view.showFolder) and the file is in one. */
  folder?: ViewPageFolder | undefined;
  /** Where the page's bytes and its own address are, when not /raw/<name> and /view/<name> (a share link's page). */
  links?: { raw: (download: boolean) => string; page: string } | undefined;
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

function rawPath(input: ViewPageInput, download = false): string {
  if (input.links) return input.links.raw(download);
  return rawLink('', input.file.name, { token: input.token, download });
}

/** "Folder: Holiday · Tags: beach, sea" for the embed card, as the page shows them; null when it shows neither. */
function embedDetails(input: Pick<ViewPageInput, 'folder' | 'tags'>): string | null {
  const parts: string[] = [];
  if (input.folder) parts.push(`Folder: ${input.folder.name}`);
  if (input.tags && input.tags.length > 0) parts.push(`Tags: ${input.tags.map((t) => t.name).join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

function embedTags(input: ViewPageInput, kind: MediaKind): SafeHtml {
  const { view, file } = input;
  if (!view.embed) return new SafeHtml('');
  const isMedia = kind === 'image' || kind === 'video' || kind === 'audio';
  if (view.embedMediaOnly && !isMedia) return new SafeHtml('');
  const raw = `${input.baseUrl}${rawPath(input)}`;
  const tags: SafeHtml[] = [];
  const title = view.embedTitle ? fillPlaceholders(view.embedTitle, file) : null;
  const own = view.embedDescription ? fillPlaceholders(view.embedDescription, file) : null;
  // The folder and tags the page shows (view.showFolder, view.showTags) go into the card too, on a line of their own.
  const details = embedDetails(input);
  const description = own && details ? `${own}\n${details}` : (own ?? details);
  const siteName = view.embedSiteName ? fillPlaceholders(view.embedSiteName, file) : input.siteTitle;
  if (title)
    tags.push(html`<meta property="og:title" content="${title}"><meta name="twitter:title" content="${title}">`);
  if (description) {
    tags.push(
      html`<meta property="og:description" content="${description}"><meta name="twitter:description" content="${description}">`,
    );
  }
  tags.push(html`<meta property="og:site_name" content="${siteName}">`);
  if (view.embedColor && /^#[0-9a-fA-F]{3,8}$/.test(view.embedColor))
    tags.push(html`<meta name="theme-color" content="${view.embedColor}">`);
  const page = input.links?.page ?? `/view/${encodeURIComponent(file.name)}`;
  tags.push(html`<meta property="og:url" content="${`${input.baseUrl}${page}`}">`);
  if (kind === 'image') {
    tags.push(
      html`<meta property="og:type" content="website"><meta property="og:image" content="${raw}"><meta property="og:image:type" content="${file.type}"><meta name="twitter:card" content="summary_large_image"><meta name="twitter:image" content="${raw}">`,
    );
  } else if (kind === 'video') {
    tags.push(
      html`<meta property="og:type" content="video.other"><meta property="og:video" content="${raw}"><meta property="og:video:type" content="${file.type}"><meta name="twitter:card" content="player"><meta name="twitter:player:stream" content="${raw}">`,
    );
  } else if (kind === 'audio') {
    tags.push(
      html`<meta property="og:type" content="music.song"><meta property="og:audio" content="${raw}"><meta property="og:audio:type" content="${file.type}"><meta name="twitter:card" content="summary">`,
    );
  } else {
    tags.push(html`<meta property="og:type" content="website"><meta name="twitter:card" content="summary">`);
  }
  return joinHtml(tags);
}

/** What the page shows in place of the file. */
function fileContent(input: ViewPageInput, kind: MediaKind, displayName: string): SafeHtml {
  const { file, view } = input;
  const src = rawPath(input);
  if (kind === 'image') return html`<div class="media"><img src="${src}" alt="${displayName}"></div>`;
  if (kind === 'video')
    return html`<div class="media"><video src="${src}" controls playsinline preload="metadata"></video></div>`;
  if (kind === 'audio') return html`<audio src="${src}" controls preload="metadata"></audio>`;
  if (kind === 'text' && input.text !== undefined && !view.disableTextFiles) {
    const cut = input.textTruncated
      ? html`<p class="muted small">Only the first ${formatByteSize(TEXT_PREVIEW_BYTES)} are shown. Download the file to read all of it.</p>`
      : '';
    return html`<pre>${input.text}</pre>${cut}`;
  }
  return html`<div class="placeholder">${icon(fileIconName(file.type), 40)}<span>No preview of this file here. Download it to open it.</span></div>`;
}

function fileFacts(input: ViewPageInput): SafeHtml {
  const { file, view } = input;
  const facts: SafeHtml[] = [html`<li>${formatByteSize(file.size)}</li>`];
  if (view.showMimetype) facts.push(html`<li>${file.type}</li>`);
  facts.push(html`<li>Uploaded ${formatDay(file.created_at)}</li>`);
  if (file.deletes_at !== null) facts.push(html`<li>Expires ${formatDay(file.deletes_at)}</li>`);
  if (input.folder) {
    const name = input.folder.public
      ? html`<a href="/folder/${encodeURIComponent(input.folder.id)}">${input.folder.name}</a>`
      : html`${input.folder.name}`;
    facts.push(html`<li>In ${name}</li>`);
  }
  return html`<ul class="meta">${joinHtml(facts)}</ul>`;
}

/** The view page of a file the visitor may see. */
export function renderViewPage(input: ViewPageInput): RenderedPage {
  const { file, view } = input;
  const kind = mediaKind(file.type);
  const displayName = file.original_name ?? file.name;
  const align = view.align === 'left' || view.align === 'right' ? view.align : 'center';
  const tags =
    input.tags && input.tags.length > 0
      ? html`<ul class="tags" aria-label="Tags">${joinHtml(input.tags.map((t) => html`<li class="tag">${colorDot(t.color)}${t.name}</li>`))}</ul>`
      : '';
  const openOriginal =
    kind === 'image' || kind === 'video' || kind === 'audio' || (kind === 'text' && !view.disableTextFiles)
      ? html`<a class="button secondary" href="${rawPath(input)}">${icon('open', 18)}Open original</a>`
      : '';
  const body = html`<article class="card stack align-${align}">
<header>
<h1>${displayName}</h1>
${fileFacts(input)}
</header>
${view.content ? html`<p class="content-text">${fillPlaceholders(view.content, file)}</p>` : ''}
${fileContent(input, kind, displayName)}
${tags}
<div class="actions"><a class="button" href="${rawPath(input, true)}">${icon('download', 18)}Download</a>${openOriginal}</div>
</article>`;
  return renderPage({ title: displayName, siteTitle: input.siteTitle, head: embedTags(input, kind), body });
}

/**
 * The page a browser gets for a password-protected file: a form posted back to the same address, which answers the
 * right password with a redirect carrying an access token (see routes/files/files.ts).
 */
export function renderPasswordPage(
  file: Pick<ServedFile, 'name'>,
  siteTitle: string,
  failure?: 'wrong' | 'empty' | 'limited',
): RenderedPage {
  // The served name only (it is in the address already): the original name may say more than its owner wants to.
  const displayName = file.name;
  return renderPasswordForm({
    siteTitle,
    title: `Password required - ${siteTitle}`,
    heading: 'This file is password protected',
    description: html`Enter the password to open <strong>${displayName}</strong>.`,
    buttonLabel: 'Open file',
    error: failure ? unlockFailure(failure) : undefined,
  });
}
