// The page shell of the short URL and folder pages. Every value placed in a page goes through escapeHtml (text and
// attribute values alike); scripts are constants of ours that read data from data- attributes, run under a nonce.
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../lib/html.js';

export interface RenderedPage {
  html: string;
  /** Content-Security-Policy allowing only this page's own inline script (by nonce) and same-origin requests. */
  csp: string;
}

/** A complete HTML document; `body` must already be escaped; `script` is a constant of ours, run under a nonce. */
export function renderPage(options: { title: string; body: string; script?: string }): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const script = options.script ? `<script nonce="${nonce}">${options.script}</script>` : '';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(options.title)}</title>
<style nonce="${nonce}">
body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}
a{color:#0969da}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem;border-bottom:1px solid #d0d7de}
form{display:flex;gap:.5rem}input{padding:.4rem;font-size:1rem}button{padding:.4rem .8rem;font-size:1rem}
.error{color:#cf222e}.muted{color:#59636e}
</style>
</head>
<body>
${options.body}
${script}
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, csp };
}
