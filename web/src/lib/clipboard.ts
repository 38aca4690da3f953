// Copying text: the Clipboard API where the page may use it (HTTPS, localhost), else the old select-and-copy way
// through a hidden text field, which also works on a server reached over plain http:// on a local network (not a
// secure context).

/** Copies `text`; false when the browser would not let the page (say so in words, and let the person copy it). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.style.position = 'fixed';
  field.style.opacity = '0';
  document.body.appendChild(field);
  field.select();
  let copied: boolean;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}
