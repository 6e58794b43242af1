/**
 * /sms/send requests that arrive together share one send transaction (services/send-writer):
 * when that transaction fails because of one request, the others are each tried again
 * alone and answered TS-1024; only the request that fails alone gets SRV-ERR.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { SendService } from '../../src/services/send-service.js';
import type { Store } from '../../src/ports/store.js';
import type { MessageStore, NewSend } from '../../src/ports/messages.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { balancesOf, intField, validSend } from '../helpers/sms.js';

const poison = 'POISON';

/** Reads `property` of `target`, methods bound to it. */
function forward(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property, target);
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

/**
 * A store whose send inserts throw when any send of the statement has the poison text, as a
 * store rejecting one request's row would; `batches` records how many sends each insert held.
 */
function poisonedStore(store: Store, batches: number[]): Store {
  const messages = (inner: MessageStore): MessageStore =>
    new Proxy(inner, {
      get(target, property) {
        if (property !== 'insertSends') return forward(target, property);
        return async (sends: readonly { id: number; send: NewSend }[]) => {
          batches.push(sends.length);
          if (sends.some((s) => s.send.text === poison)) throw new Error('the store rejects this row');
          return target.insertSends(sends);
        };
      },
    });
  const bound = (inner: Store): Store =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'messages') return messages(target.messages);
        if (property === 'transaction')
          return <T>(work: (s: Store) => Promise<T>) => target.transaction((s) => work(bound(s)));
        return forward(target, property);
      },
    });
  return bound(store);
}

describe('/sms/send: a failed shared send transaction', () => {
  let h: Harness;
  let app: FastifyInstance;
  const batches: number[] = [];
  before(async () => {
    h = await createHarness();
    const sends = new SendService(poisonedStore(h.runtime.store, batches), h.clock, () => undefined);
    app = await buildApp({
      connections: defaultConnectionLimits,
      services: { ...h.runtime.services, sends },
      requestsPerSecond: 0,
    });
  });
  after(async () => {
    await app.close();
    await h.close();
  });

  it('fails only the request that fails alone; the others are stored and answered TS-1024', async () => {
    const keys = [await h.provision(), await h.provision(), await h.provision()];
    const texts = ['Hello one', poison, 'Hello three'];
    const answers = await Promise.all(
      keys.map((p, i) =>
        app
          .inject({ method: 'POST', url: '/sms/send', payload: { ...validSend, api_key: p.apiKey, text: texts[i] } })
          .then((r) => ({
            status: r.statusCode,
            body: JSON.parse(r.body) as Record<string, unknown>,
            raw: r.body,
            headers: r.headers,
          })),
      ),
    );
    assert.ok(
      batches.some((n) => n > 1),
      `the requests shared a transaction (sends per insert: ${batches.join(', ')})`,
    );
    assert.deepEqual(
      answers.map((a) => [a.status, a.body.result_code]),
      [
        [200, 'TS-1024'],
        [500, 'SRV-ERR'],
        [200, 'TS-1024'],
      ],
    );
    for (const i of [0, 2]) {
      const p = keys[i];
      const answer = answers[i];
      assert.ok(p !== undefined && answer !== undefined);
      assert.ok(
        await h.runtime.store.reports.findMessage(intField(answer, 'sms_id'), p.accountId),
        'the message is stored',
      );
      assert.equal((await balancesOf(h, p.apiKey)).main, 999, 'and paid for');
    }
    const failed = keys[1];
    assert.ok(failed !== undefined);
    assert.equal((await balancesOf(h, failed.apiKey)).main, 1000, 'the failed request is not charged');
  });
});
