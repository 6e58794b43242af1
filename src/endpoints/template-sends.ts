import type { Caller } from '../services/auth.js';
import type { Services } from '../services/services.js';
import { singleSend } from '../services/single-send.js';
import type { SingleSendRequest, SingleSent } from '../services/single-send.js';
import type { Result } from '../domain/result.js';

/**
 * The send endpoints' path for a request that names `template_id` instead of `text`, apart
 * from the plain path so a send with `text` runs exactly as before: the template is looked
 * up and filled per number (from the contacts' fields) before the send's transaction, and
 * the send is then one of per-number texts, charged for the filled texts.
 */
export function templateSingleSend(
  services: Services,
  caller: Caller,
  body: SingleSendRequest,
  templateId: number,
): Promise<Result<SingleSent>> {
  return singleSend(services.sends, services.clock, caller, body, {
    template: (numbers) => services.templates.textsFor(caller.account.id, templateId, numbers),
  });
}
