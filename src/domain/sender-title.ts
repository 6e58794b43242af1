import { septetsOf } from './gsm-alphabet.js';

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
 * Characters a sender ID may have: ASCII letters and digits, space, `. - _ & +`, and the
 * Turkish letters (each counting as two). The spec's rule ("at most 11 characters; Turkish
 * characters count as two") is this file's alone: the admin command, `/sms/send`, the
 * panel's request form and the provider console all ask `senderIdRefusal`/`titleTooLong`.
 * How a Turkish letter goes on an SMSC's wire is each SMPP connection's setting
 * (`senderOnWire`; docs/decisions.md, "Turkish letters in sender IDs").
 */
const senderIdCharacters = /^[A-Za-z0-9 .\-_&+çğıöşüÇĞİÖŞÜ]+$/u;

/** A title as it is stored and compared: composed (NFC), so `S` + U+0327 is the one letter `Ş`. */
export function canonicalTitle(title: string): string {
  return title.normalize('NFC');
}

/**
 * Why a sender ID cannot be registered, or null when it can: what `/sms/send` would
 * refuse for `title` (empty, too long by `titleLength`) and what no carrier can send.
 */
export function senderIdRefusal(raw: string): string | null {
  const title = canonicalTitle(raw);
  if (title.trim() === '') return 'a sender ID must not be empty';
  if (titleTooLong(title))
    return `a sender ID has at most ${maxTitleLength} characters (Turkish letters count as two); this one counts ${titleLength(title)}`;
  if (!senderIdCharacters.test(title))
    return 'a sender ID takes only ASCII letters, Turkish letters, digits, space and . - _ & +';
  if (title.trim() !== title) return 'a sender ID must not begin or end with a space';
  if (!/[A-Za-z0-9çğıöşüÇĞİÖŞÜ]/u.test(title)) return 'a sender ID needs at least one letter or digit';
  return null;
}

/**
 * How an SMPP connection writes an alphanumeric sender ID (source_addr):
 * - `ascii`: Turkish letters become their ASCII base letters (`Ş` -> `S`, `ı` -> `i`, `İ` -> `I`);
 *   every SMSC takes it.
 * - `gsm7-turkish`: GSM 03.38 septets, one an octet, each Turkish letter as the default
 *   alphabet has it (`Ç Ö Ü ö ü`) or as ESC plus its code in the Turkish single shift table
 *   (`Ğ İ Ş ç ğ ı ş`), for SMSCs that take a GSM-coded originator; `_` is septet 0x11.
 */
export type SenderEncoding = 'ascii' | 'gsm7-turkish';

const asciiOf: Readonly<Record<string, string>> = {
  ç: 'c',
  ğ: 'g',
  ı: 'i',
  ö: 'o',
  ş: 's',
  ü: 'u',
  Ç: 'C',
  Ğ: 'G',
  İ: 'I',
  Ö: 'O',
  Ş: 'S',
  Ü: 'U',
};

/** A sender ID as its octets on an SMSC's wire (without the C-string's terminating NUL). */
export function senderOnWire(title: string, encoding: SenderEncoding): Uint8Array {
  const composed = canonicalTitle(title);
  if (encoding === 'ascii') {
    const text = [...composed].map((ch) => asciiOf[ch] ?? ch).join('');
    return Uint8Array.from([...text].map((ch) => ch.charCodeAt(0) & 0x7f));
  }
  const out: number[] = [];
  for (const ch of composed) out.push(...(septetsOf(ch, 'turkish') ?? [0x3f]));
  return Uint8Array.from(out);
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
