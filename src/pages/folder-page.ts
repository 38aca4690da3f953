// The public page of a folder (/folder/<id>): its files with their links, its public child folders, a zip download,
// and an upload form when the owner accepts anonymous uploads.
import { formatByteSize } from '../lib/sizes.js';
import type { PublicFolderDto } from '../schemas/folder.js';
import { escapeHtml } from '../lib/html.js';
import { renderPage, type RenderedPage } from './layout.js';

const UPLOAD_SCRIPT = `
const form = document.getElementById('upload');
const message = document.getElementById('upload-message');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  message.textContent = 'Uploading...';
  try {
    const res = await fetch(form.dataset.action, { method: 'POST', body: new FormData(form) });
    const body = await res.json();
    if (!res.ok) { message.textContent = body.error || 'Upload failed.'; return; }
    window.location.reload();
  } catch (err) {
    message.textContent = 'Could not reach the server.';
  }
});
`;

export function renderFolderPage(options: { siteTitle: string; folder: PublicFolderDto; uploadPath: string }): RenderedPage {
  const { folder } = options;
  const parent = folder.parent
    ? `<p><a href="/folder/${encodeURIComponent(folder.parent.id)}">&larr; ${escapeHtml(folder.parent.name)}</a></p>`
    : '';
  const children = folder.children
    .map((c) => `<li><a href="/folder/${encodeURIComponent(c.id)}">${escapeHtml(c.name)}/</a></li>`)
    .join('\n');
  const rows = folder.files
    .map(
      (f) => `<tr><td><a href="${escapeHtml(f.url)}">${escapeHtml(f.originalName ?? f.name)}</a>${f.password ? ' <span class="muted">(password)</span>' : ''}</td>`
        + `<td>${escapeHtml(formatByteSize(f.size))}</td><td>${escapeHtml(f.type)}</td><td>${escapeHtml(f.createdAt.slice(0, 10))}</td></tr>`,
    )
    .join('\n');
  const upload = folder.allowUploads
    ? `<h2>Upload</h2>
<form id="upload" data-action="${escapeHtml(options.uploadPath)}" enctype="multipart/form-data">
<input type="file" name="file" multiple required aria-label="Files">
<button type="submit">Upload</button>
</form>
<p id="upload-message" role="status"></p>`
    : '';
  return renderPage({
    title: `${folder.name} - ${options.siteTitle}`,
    body: `${parent}<h1>${escapeHtml(folder.name)}</h1>
<p><a href="${escapeHtml(folder.zipUrl)}">Download all as zip</a></p>
${children ? `<ul>\n${children}\n</ul>` : ''}
${rows ? `<table><thead><tr><th>Name</th><th>Size</th><th>Type</th><th>Added</th></tr></thead><tbody>\n${rows}\n</tbody></table>` : '<p class="muted">This folder has no files.</p>'}
${upload}`,
    ...(folder.allowUploads ? { script: UPLOAD_SCRIPT } : {}),
  });
}
