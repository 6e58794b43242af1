/**
 * Messages with webhook events, made through the store's own paths (no HTTP): a key with
 * settings, a send of a given kind, and its messages claimed and recorded as sent.
 */
import type { AppContainer } from '../../src/main.js';
import type { KeySettings } from '../../src/ports/keys.js';
import type { SendKind } from '../../src/ports/messages.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from './results.js';

export interface FixtureKey {
  accountId: number;
  keyId: number;
}

export async function fixtureKey(runtime: AppContainer, settings: Partial<KeySettings> = {}): Promise<FixtureKey> {
  const account = await valueOf(
    runtime.admin.createAccount({
      name: 'Hooks',
      balanceMain: 0,
      balanceInternational: 0,
      perMinuteLimit: 0,
      otpBrand: '',
      ipAllow: [],
      globalSending: false,
    }),
  );
  const key = await valueOf(runtime.admin.createKey(account.id, { ...defaultKeySettings, ...settings }));
  return { accountId: account.id, keyId: key.id };
}

/** Queues a send of `count` messages (recipients end in 1000, 1001, ...). */
export async function queueSend(
  runtime: AppContainer,
  key: FixtureKey,
  count: number,
  kind: SendKind = 'sms',
): Promise<number[]> {
  const [sendId = 0, ...ids] = await runtime.store.messages.allocateIds(count + 1);
  const now = runtime.clock.now();
  await runtime.store.messages.insertSends([
    {
      id: sendId,
      send: {
        accountId: key.accountId,
        keyId: key.keyId,
        kind,
        sender: 'ACME',
        text: 'hi',
        lang: 0,
        contentType: 0,
        scheduledAt: null,
        sandbox: false,
        totalNumbers: count,
        invalidNumbers: 0,
        blockedNumbers: 0,
        smsCost: count,
        createdAt: now,
        priority: 0,
        pendingRecipients: null,
      },
    },
  ]);
  await runtime.store.messages.insertMessagesOf([
    {
      send: {
        id: sendId,
        accountId: key.accountId,
        keyId: key.keyId,
        sandbox: false,
        createdAt: now,
        dueAt: now,
        priority: 0,
      },
      ids: ids,
      messages: ids.map((_, i) => ({
        recipient: `905321${String(1000 + i).padStart(6, '0')}`,
        text: null,
        smsCount: 1,
        operator: 'TURKCELL',
      })),
    },
  ]);
  return ids;
}

/** Claims every queued message and records it sent with carrier ids `c-<id>`: one sms.sent event each where events apply. */
export async function sendAll(runtime: AppContainer): Promise<number[]> {
  const now = runtime.clock.now();
  const claimed = await runtime.store.queue.claimDue(now, 100_000, now + 60_000);
  await runtime.store.queue.markSentMany(
    claimed.map((m) => ({ messageId: m.id, carrier: 'test', carrierMessageIds: [`c-${m.id}`] })),
    now,
  );
  return claimed.map((m) => m.id);
}

/** A key with a webhook and `count` sms.sent events waiting for delivery. */
export async function pendingEvents(
  runtime: AppContainer,
  count: number,
  settings: Partial<KeySettings>,
): Promise<{ key: FixtureKey; messageIds: number[] }> {
  const key = await fixtureKey(runtime, settings);
  const messageIds = await queueSend(runtime, key, count);
  await sendAll(runtime);
  return { key, messageIds };
}
