/**
 * The İYS text rules of a commercial panel send (src/domain/commercial-text.ts), checked on
 * the texts as they go out, as the API's `refusedText` checks a send's (src/services/single-send.ts):
 * a template's text filled for each recipient (short links change nothing the rules read), never a typed text
 * that a chosen template replaces.
 */
import type { Store } from '../../../ports/store.js';
import { parseRetWords } from '../../../domain/iys.js';
import { commercialTextGaps } from '../../../domain/commercial-text.js';
import type { TextGap } from '../../../domain/commercial-text.js';
import { templateText } from './send-shaping.js';
import type { Shaped } from './send-shaping.js';

const order: readonly TextGap[] = ['sender', 'opt-out'];

/**
 * The texts a send would send: its shaped texts when they were made; else the template's
 * text when one is chosen (none when the account has no such template: that is the
 * template's own error); else the typed text.
 */
export async function textsSent(
  store: Store,
  accountId: number,
  input: { text: string; templateId: number | null },
  shaped: Shaped | null,
): Promise<readonly string[]> {
  if (shaped !== null) return shaped.texts ?? [shaped.text];
  if (input.templateId === null) return [input.text];
  const text = await templateText(store, accountId, input.templateId);
  return text === null ? [] : [text];
}

/** What the texts lack of the rules (every text checked once), and whether the account refuses such a send. */
export async function textRuleGaps(
  store: Store,
  accountId: number,
  sender: string,
  texts: readonly string[],
): Promise<{ gaps: TextGap[]; refuse: boolean }> {
  const settings = await store.consents.settingsOf(accountId);
  const words = parseRetWords(settings?.retWords ?? null);
  const found = new Set<TextGap>();
  for (const text of new Set(texts)) for (const gap of commercialTextGaps(text, sender, words)) found.add(gap);
  return { gaps: order.filter((g) => found.has(g)), refuse: settings?.refuseTextRules === true };
}
