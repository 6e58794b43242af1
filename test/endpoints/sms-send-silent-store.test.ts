/**
 * /sms/send while PostgreSQL falls silent (a route that stops forwarding, closing nothing),
 * in process through a TCP proxy the test freezes (docs/decisions.md, "A silent PostgreSQL
 * answered in time"). Every request in flight is answered while the route is still silent
 * (so within the statement bound, not the silence); a request answered 503 is never stored
 * or charged, not even once the route carries traffic again; one answered 500 had its
 * COMMIT on the way, and sending it again with its idempotency_key stores it exactly once.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { describeOn, postgresUrl, testDialects } from '../helpers/dialects.js';
import { startSilencingProxy } from '../helpers/silencing-proxy.js';
import type { SilencingProxy } from '../helpers/silencing-proxy.js';
import { sendSms } from '../helpers/sms.js';
import { waitFor } from '../helpers/wait-for.js';

const postgres = testDialects().find((d) => d.name === 'postgres');
/** The statement bound of this suite: short, yet far above a statement's time on a loaded machine. */
const boundMs = 2000;
const balance = 100_000;

const accepted = (a: Answer): boolean => a.status === 200 && a.body.result_code === 'TS-1024';
const refused503 = (a: Answer): boolean =>
  a.status === 503 &&
  a.body.result_code === 'SRV-ERR' &&
  a.body.result === false &&
  a.headers['retry-after'] !== undefined;
const unknown500 = (a: Answer): boolean =>
  a.status === 500 && a.body.result_code === 'SRV-ERR' && a.body.result === false;

if (postgres)
  describeOn(postgres, '/sms/send while PostgreSQL is silent', () => {
    let h: Harness;
    let proxy: SilencingProxy;
    let control: pg.Client;
    let schema = '';
    let apiKey = '';
    let accountId = 0;
    let serial = 0;

    before(async () => {
      const location = await postgres.location();
      if (location.dialect !== 'postgres' || location.schema === undefined) throw new Error('a PostgreSQL schema');
      schema = location.schema;
      proxy = await startSilencingProxy(new URL(postgresUrl()));
      h = await createHarness({ ...location, url: proxy.through(location.url), statementTimeoutMs: boundMs });
      const sender = await h.provision({ account: { balanceMain: balance } });
      apiKey = sender.apiKey;
      accountId = sender.accountId;
      control = new pg.Client({ connectionString: postgresUrl() });
      await control.connect();
    });
    after(async () => {
      proxy.resume();
      await h.close();
      await proxy.close();
      await control.end();
    });

    /** A send to a number of its own, with an idempotency_key of its own (the number). */
    const send = (text = 'Silent'): { to: string; answer: Promise<Answer> } => {
      serial += 1;
      const to = `9053${String(20_000_000 + serial)}`;
      return { to, answer: sendSms(h, apiKey, { sentto: to, text, idempotency_key: `key-${to}` }) };
    };
    const again = (to: string, text = 'Silent'): Promise<Answer> =>
      sendSms(h, apiKey, { sentto: to, text, idempotency_key: `key-${to}` });

    /** How many messages the store holds for each number. */
    const stored = async (): Promise<Map<string, number>> => {
      const { rows } = await control.query<{ recipient: string; n: string }>(
        `select recipient, count(*) as n from ${schema}.messages group by recipient`,
      );
      return new Map(rows.map((r) => [r.recipient, Number(r.n)]));
    };
    const charged = async (): Promise<number> => {
      const { rows } = await control.query<{ balance_main: string }>(
        `select balance_main from ${schema}.accounts where id = $1`,
        [accountId],
      );
      return balance - Number(rows[0]?.balance_main);
    };
    const acceptedAgain = () =>
      waitFor('a send accepted once the route carries traffic again', async () => accepted(await send().answer), {
        intervalMs: 100,
      });

    it('answers every request in flight within the bound; those answered 503 are never stored', async () => {
      const answers = new Map<string, Answer>();
      const pending = new Set<string>();
      const track = ({ to, answer }: { to: string; answer: Promise<Answer> }): Promise<void> => {
        pending.add(to);
        return answer.then((a) => {
          answers.set(to, a);
          pending.delete(to);
        });
      };
      let loading = true;
      const loop = async (): Promise<void> => {
        while (loading) await track(send());
      };
      const loops = Array.from({ length: 16 }, loop);
      await waitFor('sends accepted before the silence', () => [...answers.values()].filter(accepted).length >= 12);

      proxy.silence();
      const inFlight = [...pending];
      loading = false;
      // Asked once the route is silent: answered too, none accepted.
      const asked = Array.from({ length: 8 }, () => send());
      const askedDone = asked.map(track);
      // Within the bound: a statement's time-out (bound + 1 s), or 5 s for a connection
      // (waitFor stretches it for a loaded machine). Before, a batch was tried again
      // request by request, each try waiting out its own bound, and the batches queued
      // behind it waited for all of those.
      await waitFor('every request answered while the route is still silent', () => pending.size === 0, {
        timeoutMs: boundMs + 1000 + 5000,
      });
      assert.ok(proxy.silent);
      await Promise.all([...loops, ...askedDone]);

      for (const [to, a] of answers)
        assert.ok(accepted(a) || refused503(a) || unknown500(a), `${to}: ${a.status} ${JSON.stringify(a.body)}`);
      for (const { to } of asked) {
        const a = answers.get(to);
        assert.ok(a && !accepted(a), `${to}, asked while silent, was accepted`);
      }
      assert.ok(inFlight.length > 0, 'requests were in flight at the silence');

      proxy.resume();
      await acceptedAgain();
      const before = await stored();
      for (const [to, a] of answers) {
        if (accepted(a)) assert.equal(before.get(to), 1, `${to} answered TS-1024 is stored once`);
        if (refused503(a)) assert.equal(before.get(to), undefined, `${to} answered 503 was stored`);
      }
      // A 500 (its COMMIT on the way) may be stored or not: the same key says which, and
      // stores it once either way.
      const unknown = [...answers].filter(([, a]) => unknown500(a)).map(([to]) => to);
      for (const to of unknown) assert.ok(accepted(await again(to)), `${to} sent again with its key`);
      const after = await stored();
      for (const to of unknown) assert.equal(after.get(to), 1, `${to} stored once after its key was sent again`);
      const messages = [...after.values()].reduce((n, c) => n + c, 0);
      assert.equal(await charged(), messages, 'every stored message charged once, nothing else');
    });

    it('answers 500 when the COMMIT is on its way as the route falls silent; the key then finds it made', async () => {
      // The route falls silent right after the COMMIT of the transaction that stores this
      // text: the server commits, its answer is held.
      proxy.silenceAfter('Commit held', 'commit');
      const { to, answer } = send('Commit held');
      const first = await answer;
      assert.ok(unknown500(first), `${first.status} ${JSON.stringify(first.body)}`);
      assert.match(String(first.body.result_message), /may have been carried out/);
      const before = await charged();
      proxy.resume();
      await acceptedAgain();
      assert.equal((await stored()).get(to), 1, 'the commit was made');
      const second = await again(to, 'Commit held');
      assert.ok(accepted(second), JSON.stringify(second.body));
      assert.equal((await stored()).get(to), 1, 'stored once');
      // One charge for the accepted send after the route came back, none for the key sent again.
      assert.equal(await charged(), before + 1);
    });

    it('answers 503 with Retry-After when a statement before the COMMIT is held; nothing is stored', async () => {
      // Silent as the transaction's insert of this text goes out: its COMMIT is never sent.
      proxy.silenceAfter('Insert held');
      const { to, answer } = send('Insert held');
      const first = await answer;
      assert.ok(refused503(first), `${first.status} ${JSON.stringify(first.body)}`);
      proxy.resume();
      await acceptedAgain();
      assert.equal((await stored()).get(to), undefined, 'nothing of a request answered 503 is stored');
      const second = await again(to, 'Insert held');
      assert.ok(accepted(second), JSON.stringify(second.body));
      assert.equal((await stored()).get(to), 1);
    });
  });
