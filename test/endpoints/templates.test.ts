/**
 * Templates through HTTP on every store dialect (additions to v4, docs/api.md "Templates"):
 * /templates/create, /templates/list, /templates/delete; contacts' fields through
 * /contacts/add `contacts`; sends that name `template_id` instead of `text` get each
 * number's filled text, are charged for the filled texts, and are refused (nothing
 * charged) for an unknown template, a missing field, or both text and template_id.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, assertRefused, balancesOf } from '../helpers/sms.js';
import { drain } from '../helpers/bulk.js';

function ok(answer: Answer): Record<string, unknown> {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  return answer.body;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `templates (${dialect.name})`, () => {
    const h = harnessFor(dialect);

    async function withContacts(apiKey: string): Promise<void> {
      const group = ok(await h.post('/groups/create', { api_key: apiKey, name: 'Customers' }));
      const added = await h.post('/contacts/add', {
        api_key: apiKey,
        group_id: (group.group as { id: number }).id,
        contacts: [
          { mobile: '05321234567', fields: { name: 'Ayşe', code: 4711 } },
          { mobile: '905331234567', fields: { name: 'Bora', code: 'B-1' } },
          { mobile: '905341234567' },
        ],
      });
      const body = ok(added);
      assert.equal(body.total_added, 3);
      assert.equal(body.total_failed, 0);
    }

    async function template(apiKey: string, text: string, name = 'T'): Promise<number> {
      const created = ok(await h.post('/templates/create', { api_key: apiKey, name, text }));
      assert.equal(created.result_code, 'TS-1064');
      return created.template_id as number;
    }

    it('creates, lists newest first with their placeholders, refuses a duplicate name, deletes', async () => {
      const p = await h.provision();
      const first = await template(p.apiKey, 'Hi {{name}}, code {{ code }} {{name}}', 'Welcome');
      const second = await template(p.apiKey, 'Plain text', 'Plain');
      const duplicate = await h.post('/templates/create', { api_key: p.apiKey, name: 'Welcome', text: 'x' });
      assertRefused(duplicate, 'TS-1033', 200);
      const listed = ok(await h.post('/templates/list', { api_key: p.apiKey }));
      assert.equal(listed.templates_count, 2);
      const items = listed.templates as { template_id: number; name: string; placeholders: string[] }[];
      assert.deepEqual(
        items.map((t) => [t.template_id, t.name, t.placeholders]),
        [
          [second, 'Plain', []],
          [first, 'Welcome', ['name', 'code']],
        ],
      );
      const other = await h.provision();
      assert.equal(ok(await h.post('/templates/list', { api_key: other.apiKey })).templates_count, 0);
      assertRefused(await h.post('/templates/delete', { api_key: other.apiKey, template_id: first }), 'TS-1029', 200);
      ok(await h.post('/templates/delete', { api_key: p.apiKey, template_id: first }));
      assertRefused(await h.post('/templates/delete', { api_key: p.apiKey, template_id: first }), 'TS-1029', 200);
      assert.equal(ok(await h.post('/templates/list', { api_key: p.apiKey })).templates_count, 1);
    });

    it('refuses a bad name, text or placeholder with its code', async () => {
      const p = await h.provision();
      const post = (fields: Record<string, unknown>) => h.post('/templates/create', { api_key: p.apiKey, ...fields });
      assertRefused(await post({ name: ' ', text: 'x' }), 'TS-1033', 400);
      assertRefused(await post({ name: 'n'.repeat(101), text: 'x' }), 'TS-1033', 400);
      assertRefused(await post({ name: 'A', text: '' }), 'TS-1026', 400);
      assertRefused(await post({ name: 'A', text: 'a'.repeat(2001) }), 'TS-1026', 400);
      assertRefused(await post({ name: 'A', text: `{{${'x'.repeat(33)}}}` }), 'TS-1026', 400);
      assertRefused(await h.post('/templates/delete', { api_key: p.apiKey, template_id: 0 }), 'TS-1029', 400);
    });

    it('bounds contacts fields: count, names and sizes', async () => {
      const p = await h.provision();
      const group = ok(await h.post('/groups/create', { api_key: p.apiKey, name: 'G' }));
      const id = (group.group as { id: number }).id;
      const add = (fields: unknown) =>
        h.post('/contacts/add', { api_key: p.apiKey, group_id: id, contacts: [{ mobile: '905321234567', fields }] });
      const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, 'v']));
      assertRefused(await add(many), 'TS-1033', 400);
      assertRefused(await add({ 'bad name': 'v' }), 'TS-1033', 400);
      assertRefused(await add({ name: 'v'.repeat(201) }), 'TS-1033', 400);
      assertRefused(await add({ name: { nested: true } }), 'TS-1033', 400);
      assertRefused(await add([1, 2]), 'TS-1033', 400);
      const tooMany = Array.from({ length: 10_001 }, () => ({ mobile: '905321234567' }));
      const refused = await h.post('/contacts/add', { api_key: p.apiKey, group_id: id, contacts: tooMany });
      assertRefused(refused, 'TS-1060', 400);
      assertRefused(await h.post('/contacts/add', { api_key: p.apiKey, group_id: id }), 'TS-1025', 400);
    });

    it('/sms/send with template_id sends each number its filled text and charges the filled texts', async () => {
      const p = await h.provision();
      await withContacts(p.apiKey);
      // Ayşe's text needs Unicode and is two SMS at sms_lang 2 (over 65 characters); Bora's is one.
      const id = await template(p.apiKey, 'Merhaba {{name}}, kodunuz {{code}}. TS-L{{name}}');
      const long = await template(p.apiKey, `{{code}}${'x'.repeat(60)}`, 'Long');
      const sent = await h.post('/sms/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: '05321234567,05331234567',
        template_id: long,
      });
      assertAccepted(sent);
      // 4711 + 60 = 64 characters: 1 SMS; B-1 + 60 = 63: 1 SMS.
      assert.equal(sent.body.number_of_sms, 2);
      const carrier = new RecordingCarrier();
      const delivery = await simulatedDelivery(h.runtime, { live: carrier });
      try {
        const again = await h.post('/sms/send', {
          api_key: p.apiKey,
          title: 'ACME',
          sentto: '05321234567,05331234567',
          template_id: id,
        });
        assertAccepted(again);
        await drain(delivery);
      } finally {
        await delivery.stop();
      }
      const texts = carrier.submitted.map((m) => `${m.to}:${m.text}`).sort();
      assert.ok(texts.includes('905321234567:Merhaba Ayşe, kodunuz 4711. \nAyşe'), texts.join('|'));
      assert.ok(texts.includes('905331234567:Merhaba Bora, kodunuz B-1. \nBora'), texts.join('|'));
    });

    it('/group/send and /group/sendMixed with template_id: filled per number, cost of the filled texts', async () => {
      const p = await h.provision();
      await withContacts(p.apiKey);
      const id = await template(p.apiKey, `{{name}} ${'y'.repeat(62)}`);
      const before = await balancesOf(h, p.apiKey);
      // "Ayşe " + 62 = 66 characters: 2 SMS at sms_lang 2; "Bora " + 62 = 67: 2 SMS.
      const group = await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: ['05321234567', '905331234567', '5321234567'],
        template_id: id,
      });
      assert.equal(ok(group).total_sms_cost, 4, group.raw);
      assert.equal(group.body.total_numbers, 2);
      const mixed = await h.post('/group/sendMixed', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: ['05321234567'],
        template_id: id,
      });
      assert.equal(ok(mixed).total_sms_cost, 2, mixed.raw);
      assert.deepEqual(await balancesOf(h, p.apiKey), { ...before, main: before.main - 6 });
      const carrier = new RecordingCarrier();
      const delivery = await simulatedDelivery(h.runtime, { live: carrier });
      try {
        await drain(delivery);
      } finally {
        await delivery.stop();
      }
      const texts = carrier.submitted.map((m) => m.text.slice(0, 5)).sort();
      assert.deepEqual(texts, ['Ayşe ', 'Ayşe ', 'Bora ']);
    });

    it('refuses an unknown template, a missing field, both or neither of text and template_id; nothing charged', async () => {
      const p = await h.provision();
      await withContacts(p.apiKey);
      const other = await h.provision();
      const foreign = await template(other.apiKey, 'Hi {{name}}');
      const id = await template(p.apiKey, 'Hi {{name}}');
      const before = await balancesOf(h, p.apiKey);
      const single = (fields: Record<string, unknown>) =>
        h.post('/sms/send', { api_key: p.apiKey, title: 'ACME', sentto: '905321234567', ...fields });
      const group = (fields: Record<string, unknown>) =>
        h.post('/group/send', { api_key: p.apiKey, title: 'ACME', sentto: ['905321234567'], ...fields });
      for (const send of [single, group]) {
        const unknown = await send({ template_id: foreign });
        assertRefused(unknown, 'TS-1026', 400);
        assert.match(String(unknown.body.result_message), /template_id/);
        const both = await send({ template_id: id, text: 'Hello' });
        assertRefused(both, 'TS-1033', 400);
        assert.match(String(both.body.result_message), /not both/);
        assertRefused(await send({ template_id: 'x' }), 'TS-1033', 400);
      }
      assertRefused(await single({}), 'TS-1026', 400);
      assertRefused(await group({}), 'TS-1033', 400);
      // 905341234567 is a contact without fields; 905351234567 no contact at all.
      const missing = await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: ['905321234567', '905341234567', '905351234567'],
        template_id: id,
      });
      assertRefused(missing, 'TS-1026', 400);
      assert.match(String(missing.body.result_message), /2 number\(s\).*905341234567.*\{\{name\}\}/);
      assertRefused(await single({ sentto: '905341234567', template_id: id }), 'TS-1026', 400);
      assert.deepEqual(await balancesOf(h, p.apiKey), before, 'nothing charged');
    });
  });
}
