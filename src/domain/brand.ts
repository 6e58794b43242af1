/**
 * A reseller's brand (white label, docs/resellers.md "White label"): the rules of its
 * fields, pure. Each check answers the normalised value or the problem, in words the CLI
 * and the panel both show.
 */

/** The largest logo kept: a header image, not a photograph. */
export const maxLogoBytes = 256 * 1024;
export const maxBrandName = 80;
export const maxSupportText = 300;
/** A DNS name: at most 253 characters. */
export const maxHostLength = 253;

export type LogoType = 'image/png' | 'image/jpeg' | 'image/svg+xml';

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

const good = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = (problem: string): Checked<never> => ({ ok: false, problem });

/** `#RRGGBB`, kept lower-cased: it is written into a stylesheet, so nothing else passes. */
export function checkColor(raw: string): Checked<string> {
  const value = raw.trim();
  return /^#[0-9a-fA-F]{6}$/.test(value) ? good(value.toLowerCase()) : bad('a colour is #RRGGBB, such as #0b5cad');
}

/** A brand's name: shown in every page's header and title; one line, no control characters. */
export function checkBrandName(raw: string): Checked<string> {
  const value = raw.trim();
  if (value === '') return bad('a brand name cannot be empty');
  if (value.length > maxBrandName) return bad(`a brand name has at most ${maxBrandName} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return bad('a brand name is one line of text');
  return good(value);
}

/** The support contact shown on every page of the brand (an email, a phone number, a sentence). */
export function checkSupportText(raw: string): Checked<string> {
  const value = raw.trim();
  if (value.length > maxSupportText) return bad(`the support text has at most ${maxSupportText} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(value)) return bad('the support text has no control characters');
  return good(value);
}

/**
 * The host name the reseller's customers use, as a Host header carries it: lower-cased, no
 * port, no trailing dot, letters, digits and hyphens in dot-separated labels of 1 to 63.
 */
export function checkHost(raw: string): Checked<string> {
  const value = raw.trim().toLowerCase().replace(/\.$/, '');
  if (value.length === 0 || value.length > maxHostLength) return bad('a host is a DNS name such as panel.example.com');
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
  const labels = value.split('.');
  if (labels.length < 2 || !labels.every((l) => label.test(l)))
    return bad('a host is a DNS name such as panel.example.com');
  return good(value);
}

/** The host of a request's Host header, as brands are kept (lower-cased, without its port). */
export function hostOfHeader(header: string | undefined): string {
  if (header === undefined) return '';
  const value = header.trim().toLowerCase();
  // An IPv6 literal keeps its brackets; a port after the name or the bracket goes.
  const end = value.startsWith('[') ? value.indexOf(']') + 1 : value.lastIndexOf(':');
  return (end > 0 ? value.slice(0, end) : value).replace(/\.$/, '');
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[]): boolean =>
  bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);

/**
 * The type of a logo by its first bytes, never by its name or the type a browser claims:
 * PNG and JPEG by their signatures, SVG by an `<svg` root after an optional byte order
 * mark, XML declaration, comments and doctype. Served with a policy that runs nothing in it
 * (docs/decisions.md, "White label").
 */
export function logoTypeOf(bytes: Uint8Array): Checked<LogoType> {
  if (bytes.length === 0) return bad('the logo file is empty');
  if (bytes.length > maxLogoBytes) return bad(`a logo has at most ${maxLogoBytes / 1024} KiB`);
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return good('image/png');
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return good('image/jpeg');
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 1024)).replace(/^\uFEFF/, '');
  const prolog = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i;
  if (prolog.test(head)) return good('image/svg+xml');
  return bad('a logo is a PNG, JPEG or SVG file');
}
