/**
 * Short links with click tracking (docs/decisions.md, "Short links"): every `http(s)://` URL
 * of a text becomes `<base>/<token>`, one token per URL per recipient.
 */

/** Characters of a token: 9 random bytes in base64url (72 bits, unguessable). */
export const tokenLength = 12;
export const tokenBytes = 9;
/** Most URLs replaced in one text; the rest are refused (a text is at most 2,000 characters anyway). */
export const maxLinksPerText = 10;
/** Most characters of a URL kept for a redirect. */
export const maxUrlLength = 2000;

/**
 * A URL as texts carry it: `http://` or `https://` up to a space or a character no URL
 * holds unescaped. Punctuation that ends a sentence (`.`, `,`, `)`, ...) is not taken.
 */
const urlPattern = /https?:\/\/[^\s<>"'{}|\\^`]+/gi;
const trailing = /[.,;:!?)\]]+$/;

const tokenPattern = /^[A-Za-z0-9_-]{12}$/;

export function isToken(value: string): boolean {
  return tokenPattern.test(value);
}

/** The URLs of a text, in order, repeats included. */
export function urlsOf(text: string): string[] {
  return [...text.matchAll(urlPattern)].map((m) => m[0].replace(trailing, '')).filter((u) => /^https?:\/\/./i.test(u));
}

/**
 * The text with each URL replaced by `link(url)`, in order (one call per URL, repeats
 * included: each occurrence is its own link).
 */
export function replaceUrls(text: string, link: (url: string) => string): string {
  return text.replace(urlPattern, (whole) => {
    const url = whole.replace(trailing, '');
    if (!/^https?:\/\/./i.test(url)) return whole;
    return link(url) + whole.slice(url.length);
  });
}

/**
 * The text as it will go out once its URLs are short links under `base`, with a stand-in for
 * each token: every token has the same length and characters of the GSM alphabet, so this
 * text counts (characters, SMS, encoding) as every recipient's text will.
 */
export function withStandInLinks(text: string, base: string): string {
  const standIn = `${base}/${'x'.repeat(tokenLength)}`;
  return replaceUrls(text, () => standIn);
}

/**
 * The path under which `serve` answers a base's tokens (`https://s.example/l` → `/l`), or
 * why the base cannot be one: an http(s) URL with a path, no query or fragment.
 */
export function shortLinkPath(base: string): { path: `/${string}` } | { error: string } {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { error: `"${base}" is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'the short link base is http(s)://' };
  if (url.search !== '' || url.hash !== '') return { error: 'the short link base has no query or fragment' };
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '')
    return { error: 'the short link base needs a path (https://s.example/l): serve answers GET <path>/<token>' };
  return { path: path as `/${string}` };
}
