/** Where a form may send the browser back to: a panel path, never another site. */
export function panelPath(raw: unknown, fallback = '/panel/'): string {
  return typeof raw === 'string' && /^\/panel\/[^\\]*$/.test(raw) && !raw.startsWith('/panel//') && !raw.includes('..')
    ? raw
    : fallback;
}
