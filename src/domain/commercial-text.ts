/**
 * The rules a commercial text should meet (Turkish law on commercial electronic messages):
 * it identifies the sender and says how to opt out. Checked loosely, as words in the text:
 * the sender ID, the trade name or a MERSİS number (16 digits after "MERSIS"); and an
 * opt-out word of the account (RET by default) with a number to send it to (3 digits or
 * more). What is missing is a warning in the panel, or a refusal on the API when the
 * provider set the account so (`haberci admin iys configure --text-rules refuse`).
 */
import { foldReply } from './iys.js';

/** What a commercial text lacks: who sends it, how to opt out. */
export type TextGap = 'sender' | 'opt-out';

const fold = (text: string): string => foldReply(text).replace(/\s+/g, ' ');

export function commercialTextGaps(text: string, sender: string, retWords: readonly string[]): TextGap[] {
  const folded = ` ${fold(text).replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  const gaps: TextGap[] = [];
  const senderWords = fold(sender)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  const names = senderWords !== '' && folded.includes(` ${senderWords} `);
  const mersis = /MERSIS (NO )?\d{16}/.test(folded);
  if (!names && !mersis) gaps.push('sender');
  const word = retWords.some((w) => {
    const f = fold(w)
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
    return f !== '' && folded.includes(` ${f} `);
  });
  if (!word || !/\d{3,}/.test(folded)) gaps.push('opt-out');
  return gaps;
}
