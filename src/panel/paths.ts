/**
 * Where a form or link may send the browser back to: a path of the panel, never another
 * site, and nothing a Location header cannot carry as it is. A path from the panel itself
 * (a request's URL) is printable ASCII, percent-encoded; anything else (a control
 * character such as CR or LF, a space, a backslash, any non-ASCII character such as U+3002,
 * which some URL parsers read as a dot) goes to `fallback`, the panel's home.
 */
const panelPathShape = /^\/panel\/[\x21-\x5b\x5d-\x7e]*$/;

export function panelPath(raw: unknown, fallback = '/panel/'): string {
  return typeof raw === 'string' && panelPathShape.test(raw) && !raw.startsWith('/panel//') && !raw.includes('..')
    ? raw
    : fallback;
}
