import type { InboundSms } from '../ports/carrier.js';
import type { Store } from '../ports/store.js';
import { normaliseNumber, turkishMobile } from '../domain/recipients.js';
import { isRetReply, parseRetWords, recipientTypes } from '../domain/iys.js';

/**
 * Mobile-originated messages. Each is stored, routed to the account that owns its
 * destination (a number or short code given to it with `haberci admin inbound-route add`),
 * and, when that account has a key with a webhook, announced as `sms.received`: the message
 * and its event in one transaction, before the carrier acknowledges the operator; so is the
 * outbox row that owes it to the account's SMPP receivers, when it has an SMPP user.
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
      if (accountId !== null) {
        await recordRetReply(store, accountId, from, message);
        // Owed to the account's SMPP receivers (if it has an SMPP user): in this transaction too.
        await store.outbox.oweMo({ id, accountId, receivedAt: message.receivedAt });
      }
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

/**
 * A reply whose whole text is one of the account's RET words (RET, İPTAL, IPTAL, STOP by
 * default; case and Turkish letters folded) withdraws the sender's consent at once: a RET of
 * both recipient types, dated when the reply was received, source HS_MESAJ, in the
 * transaction that stores the message (docs/iys.md).
 */
async function recordRetReply(store: Store, accountId: number, from: string, message: InboundSms): Promise<void> {
  const sender = turkishMobile(from);
  if (sender === null) return;
  const settings = await store.consents.settingsOf(accountId);
  if (!isRetReply(message.text, parseRetWords(settings?.retWords ?? null))) return;
  await store.consents.record(
    accountId,
    recipientTypes.map((type) => ({
      recipient: sender,
      recipientType: type,
      status: 'RET' as const,
      source: 'HS_MESAJ',
      consentDate: message.receivedAt,
    })),
    message.receivedAt,
  );
}
