// The page a visitor of a password-protected short URL sees: a plain form posted back to the link itself
// (POST /go/<slug>), which answers the right password with a redirect to the link carrying an unlock token.
import { html } from '../lib/formats/html.js';
import { renderPasswordPage, unlockFailure } from './password-page.js';
import type { RenderedPage } from './layout.js';

export function renderUrlPasswordPage(options: {
  siteTitle: string;
  failure?: 'wrong' | 'empty' | 'limited';
}): RenderedPage {
  return renderPasswordPage({
    siteTitle: options.siteTitle,
    title: `Password required - ${options.siteTitle}`,
    heading: 'This link is password protected',
    // Nothing about the destination: that is what the password guards.
    description: html`Enter the password to follow it.`,
    buttonLabel: 'Open link',
    error: options.failure ? unlockFailure(options.failure) : undefined,
  });
}
