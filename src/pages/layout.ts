// The shell of every server-rendered public page (file view, password forms, public folder, error pages): one small
// stylesheet with light and dark colours, the site title on top, no script at all. The stylesheet is a constant
// allowed by its hash, so the Content-Security-Policy runs nothing and allows no other style.
import { createHash } from 'node:crypto';
import { html, SafeHtml } from '../lib/formats/html.js';

export interface RenderedPage {
  html: string;
  /** The page's Content-Security-Policy: no script, only our stylesheet, images and media from our origin. */
  csp: string;
}

const CSS = `
:root{color-scheme:light dark;--bg:#f4f5f7;--surface:#fff;--text:#1f2328;--muted:#5b636d;--border:#d9dde3;
--accent:#1c6dd0;--accent-hover:#1659ab;--on-accent:#fff;--subtle:#eef1f5;--danger:#b42318;--danger-bg:#fdecea;
--ok:#1a7f37;--ok-bg:#e6f4ea;--code:#f7f8fa;--shadow:0 1px 2px rgba(16,24,40,.06),0 1px 3px rgba(16,24,40,.08)}
@media (prefers-color-scheme:dark){:root{--bg:#141517;--surface:#1f2125;--text:#e4e6ea;--muted:#9aa1ab;--border:#33363c;
--accent:#4a9dff;--accent-hover:#74b4ff;--on-accent:#0b1220;--subtle:#2a2d33;--danger:#ff8a80;--danger-bg:#3a1d1c;
--ok:#6fdc8c;--ok-bg:#17301f;--code:#17181b;--shadow:none}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--accent)}a:hover{color:var(--accent-hover)}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.site{border-bottom:1px solid var(--border);background:var(--surface)}
.site-inner{max-width:1100px;margin:0 auto;padding:12px 20px;font-weight:650;font-size:17px;overflow-wrap:anywhere}
main{max-width:1100px;margin:0 auto;padding:24px 20px 48px}
main.narrow{max-width:440px;padding-top:48px}
h1{font-size:24px;line-height:1.25;margin:0 0 6px;overflow-wrap:anywhere}
h2{font-size:17px;margin:0 0 12px}
p{margin:0 0 12px}
.muted{color:var(--muted)}
.small{font-size:14px}
.card{background:var(--surface);border:1px solid var(--border);border-radius:12px;padding:20px;box-shadow:var(--shadow)}
.stack{display:flex;flex-direction:column;gap:16px}.stack>*{margin:0}
.align-left{text-align:left}.align-center{text-align:center}.align-right{text-align:right}
.meta{display:flex;flex-wrap:wrap;gap:6px 14px;margin:0;padding:0;list-style:none;color:var(--muted);font-size:14px}
.align-center .meta,.align-center .actions,.align-center .tags{justify-content:center}
.align-right .meta,.align-right .actions,.align-right .tags{justify-content:flex-end}
.actions{display:flex;flex-wrap:wrap;gap:10px}
.button{display:inline-flex;align-items:center;justify-content:center;gap:8px;min-height:44px;padding:10px 18px;border-radius:8px;
border:1px solid transparent;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
.button:hover{background:var(--accent-hover);color:var(--on-accent)}
.button.secondary{background:var(--surface);color:var(--text);border-color:var(--border)}
.button.secondary:hover{background:var(--subtle);color:var(--text)}
.button svg{flex:none}
.media{display:flex;justify-content:center;border-radius:10px;background:var(--subtle);overflow:hidden}
.align-left .media{justify-content:flex-start}.align-right .media{justify-content:flex-end}
.media img,.media video{display:block;max-width:100%;height:auto;max-height:78vh}
.media video{width:100%;background:#000}
audio{display:block;width:100%}
pre{margin:0;text-align:left;background:var(--code);border:1px solid var(--border);border-radius:10px;padding:14px 16px;
max-height:70vh;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;font:13.5px/1.55 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.content-text{white-space:pre-line;overflow-wrap:anywhere}
.placeholder{display:flex;flex-direction:column;align-items:center;gap:8px;padding:32px 16px;border-radius:10px;background:var(--subtle);color:var(--muted);text-align:center}
.tags{display:flex;flex-wrap:wrap;gap:6px;margin:0;padding:0;list-style:none}
.tag{display:inline-flex;align-items:center;gap:6px;padding:2px 10px;border-radius:999px;background:var(--subtle);font-size:13px;overflow-wrap:anywhere}
.alert{display:flex;gap:10px;align-items:flex-start;padding:12px 14px;border-radius:8px;background:var(--danger-bg);color:var(--danger);font-weight:550}
.notice{padding:12px 14px;border-radius:8px;background:var(--ok-bg);color:var(--ok);font-weight:550}
.alert svg{flex:none;margin-top:2px}
.lock{display:flex;width:48px;height:48px;align-items:center;justify-content:center;border-radius:50%;background:var(--subtle);color:var(--accent);margin-bottom:12px}
form.unlock{display:flex;flex-direction:column;gap:8px}
label{font-weight:600;font-size:14px}
input[type=password],input[type=file]{width:100%;min-height:44px;padding:10px 12px;border:1px solid var(--border);border-radius:8px;background:var(--surface);color:var(--text);font:inherit;font-size:16px}
input[type=file]{padding:8px}
form .button{margin-top:6px;width:100%}
.folder-head{display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:12px;margin-bottom:20px}
.crumb{display:inline-flex;align-items:center;gap:4px;margin-bottom:8px;font-size:14px;text-decoration:none;overflow-wrap:anywhere}
.children{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 20px;padding:0;list-style:none}
.children li{max-width:100%}.children a{max-width:100%;display:inline-flex;align-items:center;gap:8px;min-height:40px;padding:8px 14px;border:1px solid var(--border);border-radius:8px;background:var(--surface);color:var(--text);text-decoration:none;overflow-wrap:anywhere}
.children a:hover{border-color:var(--accent)}.children svg,.crumb svg,.tile svg{flex:none}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:14px;margin:0;padding:0;list-style:none}
.pager{display:flex;gap:10px;justify-content:center;flex-wrap:wrap}
.tile{min-width:0}
.tile>a{display:flex;flex-direction:column;height:100%;border:1px solid var(--border);border-radius:10px;background:var(--surface);color:var(--text);text-decoration:none;overflow:hidden;box-shadow:var(--shadow)}
.tile>a:hover{border-color:var(--accent)}
.thumb{display:flex;align-items:center;justify-content:center;aspect-ratio:4/3;background:var(--subtle);color:var(--muted);overflow:hidden}
.thumb img{width:100%;height:100%;object-fit:cover;display:block}
.thumb .ext{display:block;margin-top:4px;font-size:12px;font-weight:700;letter-spacing:.04em;text-transform:uppercase;text-align:center}
.tile-body{display:flex;flex-direction:column;gap:2px;padding:10px 12px;min-width:0}
.tile-name{font-weight:600;font-size:14px;overflow-wrap:anywhere;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.tile-meta{font-size:12.5px;color:var(--muted)}
.empty{padding:40px 16px;text-align:center;color:var(--muted);border:1px dashed var(--border);border-radius:10px}
.upload{margin-top:28px;max-width:520px}
.upload form{display:flex;flex-direction:column;gap:8px}
.center{text-align:center}.center .lock{margin-left:auto;margin-right:auto}
@media (max-width:600px){main{padding:16px 14px 40px}main.narrow{padding-top:28px}.site-inner{padding:10px 14px}
h1{font-size:21px}.card{padding:16px}.grid{grid-template-columns:repeat(2,minmax(0,1fr));gap:10px}
.folder-head .button,.actions .button{flex:1 1 auto}}
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/** The policy of every public page: nothing runs, only our own stylesheet applies. */
export const PAGE_CSP = [
  "default-src 'none'",
  "img-src 'self' data:",
  "media-src 'self'",
  `style-src ${STYLE_HASH}`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface PageOptions {
  /** The document title. */
  title: string;
  siteTitle: string;
  /** The page's content (escaped already). */
  body: SafeHtml;
  /** Extra head elements (embed tags), escaped already. */
  head?: SafeHtml;
  /** Keep search engines away (password and error pages). */
  noindex?: boolean;
  /** A narrow column (forms). */
  narrow?: boolean;
}

/** A complete HTML document in the shared look. */
export function renderPage(options: PageOptions): RenderedPage {
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${options.noindex ? new SafeHtml('<meta name="robots" content="noindex">\n') : ''}<title>${options.title}</title>
${options.head ?? ''}
<style>${new SafeHtml(CSS)}</style>
</head>
<body>
<header class="site"><div class="site-inner">${options.siteTitle}</div></header>
<main${options.narrow ? new SafeHtml(' class="narrow"') : ''}>
${options.body}
</main>
</body>
</html>
`;
  return { html: document.value, csp: PAGE_CSP };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A day as people read it, the same for every visitor (UTC): "5 Mar 2025", in a <time> element. */
export function formatDay(ms: number): SafeHtml {
  const date = new Date(ms);
  const text = `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}
