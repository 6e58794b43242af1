import type { Caller } from '../services/auth.js';
import type { Services } from '../services/services.js';
import { singleSend } from '../services/single-send.js';
import type { GivenTexts, SingleSendRequest, SingleSent } from '../services/single-send.js';
import { toLineBreaks } from '../domain/sms-count.js';
import { ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

/** What a send asks of its texts beyond `text`: a template, short links. */
export interface TextShaping {
  template_id?: number | undefined;
  short_links?: number | undefined;
}

/** Whether a send takes the shaped path (a plain send runs exactly as before). */
export function shaped(body: TextShaping): boolean {
  return body.template_id !== undefined || body.short_links === 1;
}

/**
 * A send's texts for its numbers (normalised, distinct) when it names `template_id` or asks
 * for `short_links`: the template filled per number from the contacts' fields, then each
 * number's URLs shortened, the links written with the send. `text`: the request's text(s)
 * when there is no template. Computed before the send's transaction. `later` (a bulk send):
 * the URLs are left as they are and the base returned instead (`shortLinks`), the links made
 * as the messages are written out (ShortLinkService.later).
 */
export async function shapedTexts(
  services: Services,
  caller: Caller,
  body: TextShaping,
  numbers: readonly string[],
  text: string | readonly string[],
  later = false,
): Promise<Result<GivenTexts & { shortLinks?: string }>> {
  let given: GivenTexts;
  if (body.template_id !== undefined) {
    const filled = await services.templates.textsFor(caller.account.id, body.template_id, numbers);
    if (!filled.ok) return filled;
    given = filled.value;
  } else given = typeof text === 'string' ? { text, texts: null } : { text: '', texts: [...text] };
  if (body.short_links !== 1) return ok(given);
  if (later) {
    const base = services.links.later(given.texts ?? given.text);
    return base.ok ? ok({ ...given, shortLinks: base.value }) : base;
  }
  const shortened = services.links.shorten(numbers, given.texts ?? given.text);
  if (!shortened.ok) return shortened;
  return ok({
    text: given.text,
    texts: shortened.value.texts,
    alongside: services.links.alongside(caller.account.id, shortened.value.links),
  });
}

/**
 * /sms/send that names `template_id` instead of `text`, or asks for `short_links`: apart
 * from the plain path so a send with `text` alone runs exactly as before; the send is then
 * one of per-number texts, charged for the texts sent.
 */
export function shapedSingleSend(
  services: Services,
  caller: Caller,
  body: SingleSendRequest & TextShaping,
): Promise<Result<SingleSent>> {
  return singleSend(services.sends, services.clock, caller, body, {
    texts: (numbers) => shapedTexts(services, caller, body, numbers, toLineBreaks(body.text ?? '')),
  });
}
