// The page a browser gets when a public address leads nowhere (missing, expired, not shared): what happened, in words.
import { html } from '../lib/formats/html.js';
import { icon } from './icons.js';
import { renderPage, type RenderedPage } from './layout.js';

export interface ErrorPageText {
  title: string;
  message: string;
}

export function renderErrorPage(
  options: { siteTitle: string; back?: { href: string; label: string } } & ErrorPageText,
): RenderedPage {
  const back = options.back
    ? html`<p><a class="button secondary" href="${options.back.href}">${icon('back', 18)}${options.back.label}</a></p>`
    : '';
  const body = html`<div class="card center">
<div class="lock">${icon('alert', 24)}</div>
<h1>${options.title}</h1>
<p class="muted">${options.message}</p>
${back}</div>`;
  return renderPage({
    title: `${options.title} - ${options.siteTitle}`,
    siteTitle: options.siteTitle,
    body,
    noindex: true,
    narrow: true,
  });
}
