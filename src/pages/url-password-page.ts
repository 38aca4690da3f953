// The page a visitor of a password-protected short URL sees: a password form that asks the API for an unlock token
// (POST /api/user/urls/:id/password) and then follows the link again with it (?token=...).
import { escapeHtml } from '../lib/html.js';
import { renderPage, type RenderedPage } from './layout.js';

const SCRIPT = `
const form = document.getElementById('unlock');
const message = document.getElementById('message');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  message.textContent = '';
  const password = form.elements.password.value;
  try {
    const res = await fetch(form.dataset.unlock, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password }),
    });
    const body = await res.json();
    if (!res.ok) { message.textContent = res.status === 403 ? 'Wrong password.' : (body.error || 'Something went wrong.'); return; }
    const next = new URL(window.location.href);
    next.searchParams.set('token', body.token);
    window.location.replace(next.toString());
  } catch (err) {
    message.textContent = 'Could not reach the server.';
  }
});
`;

export function renderUrlPasswordPage(options: { siteTitle: string; urlId: string }): RenderedPage {
  const unlockPath = `/api/user/urls/${encodeURIComponent(options.urlId)}/password`;
  return renderPage({
    title: `Password required - ${options.siteTitle}`,
    body: `<h1>This link is password protected</h1>
<form id="unlock" data-unlock="${escapeHtml(unlockPath)}">
<input type="password" name="password" autocomplete="current-password" required autofocus aria-label="Password">
<button type="submit">Open link</button>
</form>
<p id="message" class="error" role="alert"></p>
<noscript><p class="error">Unlocking this link needs JavaScript.</p></noscript>`,
    script: SCRIPT,
  });
}
