/**
 * /sms/send requests that arrive together share one send transaction (services/send-writer):
 * when that transaction fails because of one request, the others are each tried again
 * alone and answered TS-1024; only the request that fails alone gets SRV-ERR. When it fails
 * because of the store (away, silent: a fault of no one request), nothing is tried again:
 * every request of the batch is answered at once, 503 with Retry-After.
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
import { StoreUnavailable } from '../../src/util/store-faults.js';

const poison = 'POISON';
/** A send whose insert fails as a store that stopped answering fails it. */
const away = 'AWAY';

/** Reads `property` of `target`, methods bound to it. */
function forward(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property, target);
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

/**
 * A store whose send inserts throw when any send of the statement has the poison text, as a
 * store rejecting one request's row would (or as a store that stopped answering, for the text
 * AWAY); `batches` records how many sends each insert held, `inserts` their texts.
 */
function poisonedStore(store: Store, batches: number[], inserts: string[][] = []): Store {
  const messages = (inner: MessageStore): MessageStore =>
    new Proxy(inner, {
      get(target, property) {
        if (property !== 'insertSends') return forward(target, property);
        return async (sends: readonly { id: number; send: NewSend }[]) => {
          batches.push(sends.length);
          inserts.push(sends.map((s) => s.send.text ?? ''));
          if (sends.some((s) => s.send.text === poison)) throw new Error('the store rejects this row');
          if (sends.some((s) => s.send.text === away))
            throw new StoreUnavailable('the store did not answer a statement: nothing of it was committed');
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
  const inserts: string[][] = [];
  before(async () => {
    h = await createHarness();
    const sends = new SendService(poisonedStore(h.runtime.store, batches, inserts), h.clock, () => undefined);
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

  it('answers every request of a batch 503 at once when the store fails it, trying none again', async () => {
    const keys = [await h.provision(), await h.provision(), await h.provision()];
    const texts = ['Hello one', away, 'Hello three'];
    const before = inserts.length;
    const answers = await Promise.all(
      keys.map((p, i) =>
        app.inject({ method: 'POST', url: '/sms/send', payload: { ...validSend, api_key: p.apiKey, text: texts[i] } }),
      ),
    );
    // Every insert that held the failing send: one, holding the others of its batch too.
    const failed = inserts.slice(before).filter((t) => t.includes(away));
    assert.equal(failed.length, 1, `inserts: ${JSON.stringify(inserts.slice(before))}`);
    const batch = failed[0] ?? [];
    assert.ok(batch.length > 1, `the requests shared a transaction (${JSON.stringify(batch)})`);
    for (const [i, answer] of answers.entries()) {
      const p = keys[i];
      const text = texts[i];
      assert.ok(p !== undefined && text !== undefined);
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      if (batch.includes(text)) {
        assert.deepEqual([answer.statusCode, body.result_code, body.result], [503, 'SRV-ERR', false]);
        assert.equal(answer.headers['retry-after'], '5');
        assert.equal((await balancesOf(h, p.apiKey)).main, 1000, 'not charged');
      } else assert.equal(body.result_code, 'TS-1024', 'a send of another batch');
    }
  });
});
