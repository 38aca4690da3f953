// The public page of a folder (/folder/<id>): its files as a grid of tiles (a thumbnail for images anyone may load,
// a type icon otherwise) linking to each file's view page, its public child folders, the zip download, and a plain
// upload form (posted to the page itself, no script) when the owner accepts anonymous uploads.
import { html, joinHtml, type SafeHtml } from '../lib/formats/html.js';
import { formatByteSize } from '../lib/text/sizes.js';
import { fileIconName, icon } from './icons.js';
import { formatDay, renderPage, type RenderedPage } from './layout.js';

export interface FolderPageFile {
  /** The served name (its view page is /view/<name>). */
  name: string;
  /** What the visitor reads: the original name when there is one. */
  displayName: string;
  type: string;
  size: number;
  createdAt: number;
  password: boolean;
  /**
   * The picture of the tile: the made thumbnail (/raw/.thumbnail.<id>.webp) of a file without password, else the image
   * itself when loading it costs nothing (no password, no view limit), else null (a type icon).
   */
  thumbnail: string | null;
}

export interface FolderPageInput {
  siteTitle: string;
  folder: { id: string; name: string; allowUploads: boolean };
  parent: { id: string; name: string } | null;
  children: Array<{ id: string; name: string }>;
  files: FolderPageFile[];
  /** How many files the visitor has just uploaded (after the upload form's redirect). */
  uploaded?: number | undefined;
  /** The cursor of the page of older files (`?after=`), when there are more than this page shows. */
  olderPage?: string | null | undefined;
  /** Whether this page is one of older files (a link back to the newest). */
  newerPages?: boolean | undefined;
}

const folderPath = (id: string) => `/folder/${encodeURIComponent(id)}`;

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 && name.length - dot <= 6 ? name.slice(dot + 1) : '';
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function fileTile(file: FolderPageFile): SafeHtml {
  const thumb = file.password
    ? html`<div class="thumb">${icon('lock', 36)}</div>`
    : file.thumbnail !== null
      ? html`<div class="thumb"><img src="${file.thumbnail}" alt="" loading="lazy" decoding="async"></div>`
      : html`<div class="thumb"><div>${icon(fileIconName(file.type), 40)}<span class="ext">${extensionOf(file.displayName)}</span></div></div>`;
  const size = [formatByteSize(file.size), ...(file.password ? ['locked'] : [])].join(' · ');
  return html`<li class="tile"><a href="/view/${encodeURIComponent(file.name)}">${thumb}<div class="tile-body"><span class="tile-name">${file.displayName}</span><span class="tile-meta">${size}</span><span class="tile-meta">${formatDay(file.createdAt)}</span></div></a></li>`;
}

export function renderFolderPage(input: FolderPageInput): RenderedPage {
  const { folder, files, children } = input;
  const parent = input.parent
    ? html`<a class="crumb" href="${folderPath(input.parent.id)}">${icon('back', 16)}${input.parent.name}</a>`
    : '';
  const paged = Boolean(input.olderPage) || Boolean(input.newerPages);
  const counts =
    files.length === 0 && children.length === 0 && !paged
      ? 'Empty'
      : [
          paged ? `${files.length} files on this page` : plural(files.length, 'file', 'files'),
          ...(children.length > 0 ? [plural(children.length, 'folder', 'folders')] : []),
        ].join(' · ');
  const zip =
    files.length > 0 || children.length > 0 || paged
      ? html`<a class="button" href="/api/folders/${encodeURIComponent(folder.id)}/zip">${icon('download', 18)}Download all (.zip)</a>`
      : '';
  const notice =
    input.uploaded !== undefined && input.uploaded > 0
      ? html`<p class="notice" role="status">${plural(input.uploaded, 'file', 'files')} uploaded. Thank you!</p>`
      : '';
  const childList =
    children.length > 0
      ? html`<ul class="children" aria-label="Folders">${joinHtml(children.map((c) => html`<li><a href="${folderPath(c.id)}">${icon('folder', 18)}${c.name}</a></li>`))}</ul>`
      : '';
  const grid =
    files.length > 0
      ? html`<ul class="grid" aria-label="Files">${joinHtml(files.map(fileTile))}</ul>`
      : html`<p class="empty">This folder has no files${folder.allowUploads ? ' yet: be the first to add one below' : ''}.</p>`;
  const pager = paged
    ? html`<nav class="pager" aria-label="More files">${input.newerPages ? html`<a class="button" href="${folderPath(folder.id)}">Newest files</a>` : ''}${input.olderPage ? html`<a class="button" href="${folderPath(folder.id)}?after=${encodeURIComponent(input.olderPage)}">Older files</a>` : ''}</nav>`
    : '';
  const upload = folder.allowUploads
    ? html`<section class="card upload" aria-labelledby="upload-title">
<h2 id="upload-title">Add files to this folder</h2>
<form method="post" action="${folderPath(folder.id)}" enctype="multipart/form-data">
<label for="upload-files">Choose files</label>
<input id="upload-files" type="file" name="file" multiple required>
<button class="button" type="submit">${icon('upload', 18)}Upload</button>
</form>
</section>`
    : '';
  const body = html`${parent}<div class="folder-head"><div><h1>${folder.name}</h1><p class="muted small">${counts}</p></div>${zip}</div>
${notice}
${childList}
${grid}
${pager}
${upload}`;
  return renderPage({ title: `${folder.name} - ${input.siteTitle}`, siteTitle: input.siteTitle, body });
}
