/* global document, navigator, Element */
// The panel's only script of its own (no inline script: the Content-Security-Policy
// forbids it). Every page works without it; it adds copy buttons.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy-target]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy-target') || '');
  if (!source) return;
  const text = 'value' in source ? source.value : source.textContent;
  navigator.clipboard.writeText(text || '').then(() => {
    const done = button.getAttribute('data-copied');
    if (done) button.textContent = done;
  });
});
