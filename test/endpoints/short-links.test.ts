/**
 * Short links through HTTP on every store dialect (additions to v4, docs/api.md "Short
 * links"): `short_links` 1 gives each recipient's URLs links of their own under the base,
 * counted in the SMS length; GET on a link redirects to the URL the customer sent and
 * counts the click; the first click of a message writes sms.clicked once; the reports show
 * clicks; an unknown token, or anything else under the path, is a plain 404, never a redirect.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, assertRefused } from '../helpers/sms.js';
import { drain } from '../helpers/bulk.js';

const base = 'https://s.example/l';
const linkPattern = /https:\/\/s\.example\/l\/([A-Za-z0-9_-]{12})/g;

function tokensOf(text: string): string[] {
  return [...text.matchAll(linkPattern)].map((m) => m[1] ?? '');
}

for (const dialect of testDialects()) {
  describeOn(dialect, `short links (${dialect.name})`, () => {
    const h = harnessFor(dialect, {}, base);
    const get = (path: string): Promise<Answer> => h.post(path, undefined, { method: 'GET' });

    it('a group send: links per recipient in the SMS length, redirects, clicks in both reports, sms.clicked once a message', async () => {
      const p = await h.provision({ key: { webhookUrl: 'http://127.0.0.1:9/hook', webhookSecret: 'secret-1' } });
      const text = 'Sale! https://shop.example.com/a?x=1. And http://b.example/';
      const sent = await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: ['905321234567', '905331234567', '05321234567'],
        text,
        short_links: 1,
        sms_lang: 0,
      });
      assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
      const raporId = sent.body.rapor_id as number;
      // "Sale! " + 31 + ". And " + 31 = 74 characters: 1 SMS each, counted with the links.
      assert.equal(sent.body.total_sms_cost, 2);
      const carrier = new RecordingCarrier();
      const delivery = await simulatedDelivery(h.runtime, { live: carrier });
      try {
        await drain(delivery);
      } finally {
        await delivery.stop();
      }
      assert.equal(carrier.submitted.length, 2);
      const [first, second] = carrier.submitted;
      assert.ok(first && second);
      const a = tokensOf(first.text);
      const b = tokensOf(second.text);
      assert.equal(a.length, 2, first.text);
      assert.equal(new Set([...a, ...b]).size, 4, 'every URL of every recipient has its own token');
      assert.match(first.text, /^Sale! https:\/\/s\.example\/l\/[A-Za-z0-9_-]{12}\. And https:\/\/s\.example\/l\//);

      const go = await get(`/l/${a[0]}`);
      assert.equal(go.status, 302, go.raw);
      assert.equal(go.headers.location, 'https://shop.example.com/a?x=1');
      assert.equal((await get(`/l/${a[1]}`)).headers.location, 'http://b.example/');
      await get(`/l/${a[0]}`);
      const events = await h.runtime.store.events.recentForKey(p.keyId, 50);
      const clicked = events.filter((e) => e.eventType === 'sms.clicked');
      assert.equal(clicked.length, 1, 'one sms.clicked for the message, however many clicks');
      assert.equal(clicked[0]?.smsId, first.messageId);
      assert.equal(clicked[0]?.extra?.url, 'https://shop.example.com/a?x=1');

      const basic = await h.post('/reports/basic', { api_key: p.apiKey, raporid: raporId });
      assert.equal(basic.body.clicks, 3, basic.raw);
      assert.equal(basic.body.unique_clickers, 1);
      // The campaign page's chart: the clicks in minute buckets from the first.
      const links = h.runtime.store.links;
      const series = await links.clickSeries(raporId, 120);
      assert.deepEqual(series, [{ at: Math.floor(h.clock.now() / 60_000) * 60_000, clicks: 3 }]);
      assert.equal(await links.hasLinks(raporId), true);
      assert.equal(await links.hasLinks(raporId + 1000), false);
      assert.deepEqual(await links.clickSeries(raporId + 1000, 120), []);
      const detailed = await h.post('/reports/detailed', { api_key: p.apiKey, raporid: raporId });
      const rows = detailed.body.data as { phone_number: string; short_links?: string[]; clicks?: number }[];
      const row = rows.find((r) => r.phone_number === first.to);
      assert.deepEqual(row?.short_links?.slice().sort(), a.map((t) => `${base}/${t}`).sort());
      assert.equal(row?.clicks, 3);
      assert.equal(rows.find((r) => r.phone_number === second.to)?.clicks, 0);
    });

    it('an unknown token, a malformed one and other paths under the base: a plain 404 page, no redirect', async () => {
      for (const path of ['/l/AAAAAAAAAAAA', '/l/short', '/l/', '/l/AAAAAAAAAAAA/x', '/l/%2F%2Fevil.example']) {
        const answer = await get(path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.headers.location, undefined, path);
        assert.match(String(answer.headers['content-type']), /text\/html/, path);
        assert.match(answer.raw, /Not found/, path);
      }
    });

    it('/sms/send with short_links and a template: each number its own filled text and links; the cost of what is sent', async () => {
      const p = await h.provision();
      const created = await h.post('/templates/create', {
        api_key: p.apiKey,
        name: 'Promo',
        text: 'Hi {{name}} see https://x.example/{{name}}',
      });
      const group = await h.post('/groups/create', { api_key: p.apiKey, name: 'G' });
      await h.post('/contacts/add', {
        api_key: p.apiKey,
        group_id: (group.body.group as { id: number }).id,
        contacts: [{ mobile: '905321234567', fields: { name: 'ayse' } }],
      });
      const sent = await h.post('/sms/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: '905321234567',
        template_id: created.body.template_id,
        short_links: 1,
        sms_lang: 0,
      });
      assertAccepted(sent);
      const carrier = new RecordingCarrier();
      const delivery = await simulatedDelivery(h.runtime, { live: carrier });
      try {
        await drain(delivery);
      } finally {
        await delivery.stop();
      }
      const message = carrier.submitted[0];
      assert.ok(message);
      assert.match(message.text, /^Hi ayse see https:\/\/s\.example\/l\/[A-Za-z0-9_-]{12}$/);
      const go = await get(`/l/${tokensOf(message.text)[0]}`);
      assert.equal(go.headers.location, 'https://x.example/ayse');
    });

    it('refuses short_links other than 0 or 1, and a text over 2,000 characters once shortened', async () => {
      const p = await h.provision();
      const send = (fields: Record<string, unknown>) =>
        h.post('/sms/send', { api_key: p.apiKey, title: 'ACME', sentto: '905321234567', ...fields });
      assertRefused(await send({ text: 'x', short_links: 2 }), 'TS-1033', 400);
      const long = `${'a'.repeat(1980)} http://a.b`;
      assertRefused(await send({ text: long, short_links: 1 }), 'TS-1026', 400);
      assertAccepted(await send({ text: long }));
      const group = (fields: Record<string, unknown>) =>
        h.post('/group/send', { api_key: p.apiKey, title: 'ACME', sentto: ['905321234567'], ...fields });
      assertRefused(await group({ text: long, short_links: 1 }), 'TS-1026', 400);
      const eleven = Array.from({ length: 11 }, (_, i) => `http://u${i}.example`).join(' ');
      assertRefused(await group({ text: eleven, short_links: 1 }), 'TS-1033', 400);
      assertAccepted(await group({ text: eleven }));
    });

    it('a group send is charged for its texts with their links, which are made as its messages are written out: a cancel gives back what was charged', async () => {
      const p = await h.provision();
      // 150 characters with a 20-character URL: 162 with its link (32), so two SMS each.
      const text = `${'z'.repeat(129)} http://b.example/xyz`;
      assert.equal(text.length, 150);
      const numbers = ['905321234567', '905331234567', '905341234567'];
      const sent = await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: numbers,
        text,
        short_links: 1,
        sms_lang: 0,
      });
      assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
      assert.equal(sent.body.total_sms_cost, 6, sent.raw);
      const raporId = sent.body.rapor_id as number;
      // Not written out yet: it has short links (the campaign page shows its clicks), none
      // made so far, and a cancel gives the whole cost back.
      assert.equal(await h.runtime.store.links.hasLinks(raporId), true);
      assert.equal((await h.runtime.store.links.recipientLinks(raporId, numbers)).size, 0);
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: raporId });
      assert.deepEqual([cancel.body.cancelled, cancel.body.refunded], [3, 6], cancel.raw);

      // The same send written out and submitted: each message its own link, two SMS each.
      const again = await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: numbers,
        text,
        short_links: 1,
        sms_lang: 0,
      });
      assert.equal(again.body.total_sms_cost, 6, again.raw);
      const carrier = new RecordingCarrier();
      const delivery = await simulatedDelivery(h.runtime, { live: carrier });
      try {
        await drain(delivery);
      } finally {
        await delivery.stop();
      }
      // The earlier tests' plain sends went out with it.
      const ours = carrier.submitted.filter((m) => m.text.startsWith('zzz'));
      assert.equal(ours.length, 3);
      for (const m of ours) {
        assert.equal(m.text.length, 162, m.text);
        assert.equal(tokensOf(m.text).length, 1, m.text);
      }
      const detailed = await h.post('/reports/detailed', { api_key: p.apiKey, raporid: again.body.rapor_id });
      const rows = detailed.body.data as { short_links?: string[] }[];
      assert.deepEqual(
        rows.map((r) => r.short_links?.length),
        [1, 1, 1],
        detailed.raw,
      );
      assert.equal(await h.runtime.store.links.hasLinks(again.body.rapor_id as number), true);
    });
  });
}
