import type { InboundSms } from '../ports/carrier.js';
import type { Store } from '../ports/store.js';
import { normaliseNumber } from '../domain/recipients.js';

/**
 * Mobile-originated messages. Each is stored, routed to the account that owns its
 * destination (a number or short code given to it with `haberci admin inbound-route add`),
 * and, when that account has a key with a webhook, announced as `sms.received`: the message
 * and its event in one transaction, before the carrier acknowledges the operator.
 */
export class InboundService {
  constructor(
    private readonly store: Store,
    private readonly onEvent: () => void = () => undefined,
  ) {}

  async receive(message: InboundSms): Promise<{ id: number; accountId: number | null }> {
    const from = normaliseNumber(message.from);
    const to = normaliseNumber(message.to);
    const stored = await this.store.transaction(async (store) => {
      const [id = 0] = await store.messages.allocateIds(1);
      const accountId = await store.inbound.routeFor(to);
      await store.inbound.insert({ id, accountId, from, to, text: message.text, receivedAt: message.receivedAt });
      const keyId = accountId === null ? null : await store.inbound.webhookKeyOf(accountId);
      if (keyId !== null) {
        await store.events.createPending(
          {
            keyId,
            eventType: 'sms.received',
            smsId: id,
            status: null,
            extra: { from, to, text: message.text, received_at: new Date(message.receivedAt).toISOString() },
          },
          message.receivedAt,
        );
      }
      return { id, accountId, announced: keyId !== null };
    });
    if (stored.announced) this.onEvent();
    return { id: stored.id, accountId: stored.accountId };
  }
}
