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

/**
 * Characters a provider may register in a sender ID: ASCII letters and digits, space and
 * `. - _ & +`. Alphanumeric originators on GSM networks take these; the SMPP carrier sends
 * the sender ID as ASCII, so any other character (a Turkish letter included) would fail
 * every send (docs/decisions.md).
 */
const senderIdCharacters = /^[A-Za-z0-9 .\-_&+]+$/;

/**
 * Why a sender ID cannot be registered, or null when it can: what `/sms/send` would
 * refuse for `title` (empty, too long by `titleLength`) and what no carrier can send.
 */
export function senderIdRefusal(title: string): string | null {
  if (title.trim() === '') return 'a sender ID must not be empty';
  if (titleTooLong(title))
    return `a sender ID has at most ${maxTitleLength} characters (Turkish letters count as two); this one has ${titleLength(title)}`;
  if (!senderIdCharacters.test(title)) return 'a sender ID takes only ASCII letters, digits, space and . - _ & +';
  if (title.trim() !== title) return 'a sender ID must not begin or end with a space';
  if (!/[A-Za-z0-9]/.test(title)) return 'a sender ID needs at least one letter or digit';
  return null;
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
