/**
 * The panel's live SMS counter: characters, parts and encoding of a text, exactly as a send
 * is charged. It counts with the same tables as every send (sms-count.ts) and is shipped to
 * the browser compiled from this very source (no copy), so the counter under the text box
 * and the charge cannot disagree. Pure: no Node API, so it runs in a browser as is.
 */
import { septetsOf } from './gsm-alphabet.js';
import type { SmsLang } from './labels.js';
import { smsCount, textLength, toLineBreaks } from './sms-count.js';

export type Encoding = 'gsm7' | 'turkish' | 'ucs2';

export interface TextCount {
  characters: number;
  /** SMS parts each recipient is charged (the Türkiye table, as bulk sends count). */
  parts: number;
  encoding: Encoding;
  /** The sms_lang the panel sends with: the cheapest one that carries the text as it is. */
  lang: SmsLang;
}

const fits = (text: string, table: 'default' | 'turkish'): boolean => {
  for (const ch of text) if (septetsOf(ch, table) === undefined) return false;
  return true;
};

/** The encoding a text needs: the GSM default alphabet, its Turkish single shift, or UCS-2. */
export function encodingOf(text: string): Encoding {
  const t = toLineBreaks(text);
  if (fits(t, 'default')) return 'gsm7';
  if (fits(t, 'turkish')) return 'turkish';
  return 'ucs2';
}

const langOf: Record<Encoding, SmsLang> = { gsm7: 0, turkish: 1, ucs2: 2 };

export function countText(text: string): TextCount {
  const encoding = encodingOf(text);
  const lang = langOf[encoding];
  return { characters: textLength(toLineBreaks(text)), parts: smsCount(text, lang, 'turkey'), encoding, lang };
}
