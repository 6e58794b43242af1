/** Most length units a sender ID (`title`) may have. */
export const maxTitleLength = 11;

/**
 * The letters of the Turkish alphabet outside ASCII. They count as two in a title. The
 * circumflex vowels (â, î, û) are not letters of the alphabet, only optional accents, and
 * count as one like any other character.
 */
const turkishLetters = new Set('çğıöşüÇĞİÖŞÜ');

/**
 * Length of a sender ID: one per character (code point), two per Turkish letter. The title
 * is composed (NFC) first, so a `c` followed by a combining cedilla counts as one `ç`.
 */
export function titleLength(title: string): number {
  let length = 0;
  for (const ch of title.normalize('NFC')) length += turkishLetters.has(ch) ? 2 : 1;
  return length;
}

export function titleTooLong(title: string): boolean {
  return titleLength(title) > maxTitleLength;
}

/** Placeholder sender IDs that /otp/detailed rejects, case-insensitively. */
export const reservedOtpSenders: ReadonlySet<string> = new Set([
  'test',
  'api',
  'apikey',
  'api_key',
  'test123',
  '123',
  '0000',
  '123456789',
  'senderid',
  'sender',
  'title',
  'text',
  'content',
]);

/**
 * Case folding that does not depend on the server's locale: `toLowerCase` (never
 * `toLocaleLowerCase`, which under a Turkish locale turns `I` into `ı`). Turkish dotted
 * `İ` and dotless `ı` are folded to `i` as well, because a Turkish keyboard writes `TİTLE`
 * or `tıtle` for the same placeholder; the default mapping would make `İ` into `i̇`.
 */
function foldCase(text: string): string {
  return text.replace(/[İı]/g, 'i').toLowerCase();
}

/** Whether a title is one of the placeholders /otp/detailed rejects; surrounding whitespace is ignored. */
export function isReservedOtpSender(title: string): boolean {
  return reservedOtpSenders.has(foldCase(title.trim()));
}
