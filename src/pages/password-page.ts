// The password form of a protected file or short URL. A plain HTML form posted back to the same address (no script):
// the server answers the right password with a redirect that carries an access token, a wrong one with this page
// again and the reason in words.
import { html, type SafeHtml } from '../lib/formats/html.js';
import { icon } from './icons.js';
import { renderPage, type RenderedPage } from './layout.js';

export interface PasswordPageOptions {
  siteTitle: string;
  /** The document title. */
  title: string;
  heading: string;
  /** What is locked, in a sentence (escaped already). */
  description: SafeHtml;
  buttonLabel: string;
  /** Why the last attempt failed, in words. */
  error?: string | undefined;
}

export function renderPasswordPage(options: PasswordPageOptions): RenderedPage {
  const error = options.error
    ? html`<p class="alert" role="alert" id="password-error">${icon('alert', 18)}<span>${options.error}</span></p>`
    : '';
  const body = html`<div class="card">
<div class="lock">${icon('lock', 24)}</div>
<h1>${options.heading}</h1>
<p class="muted">${options.description}</p>
${error}
<form class="unlock" method="post">
<label for="password">Password</label>
<input id="password" type="password" name="password" autocomplete="current-password" required autofocus${options.error ? html` aria-invalid="true" aria-describedby="password-error"` : ''}>
<button class="button" type="submit">${options.buttonLabel}</button>
</form>
</div>`;
  return renderPage({ title: options.title, siteTitle: options.siteTitle, body, noindex: true, narrow: true });
}

/** The words for a failed unlock: a wrong password, too many attempts, or anything else. */
export function unlockFailure(reason: 'wrong' | 'empty' | 'limited'): string {
  if (reason === 'wrong') return 'Wrong password. Check it and try again.';
  if (reason === 'empty') return 'Enter the password.';
  return 'Too many attempts. Wait a minute, then try again.';
}
