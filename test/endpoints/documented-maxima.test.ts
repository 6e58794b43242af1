/**
 * The documented maxima fit in their endpoint's body limit when every number is written
 * in the longest form the spec allows: 50,000 numbers of a scheduled /sms/send, of a
 * /group/send and of /contacts/add.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';

/** The i-th number as `0090 (532) 123 45 67`: 20 characters, every separator the spec removes. */
function longForm(i: number): string {
  const d = String(1_000_000 + i).slice(-7);
  return `0090 (532) ${d.slice(0, 3)} ${d.slice(3, 5)} ${d.slice(5, 7)}`;
}

describe('documented maxima in the longest number forms', () => {
  let h: Harness;
  let p: Provisioned;
  const numbers = Array.from({ length: 50_000 }, (_, i) => longForm(i));
  before(async () => {
    h = await createHarness();
    p = await h.provision({ account: { balanceMain: 1_000_000 } });
  });
  after(async () => h.close());

  it('a scheduled /sms/send to 50,000 numbers, comma and space separated', async () => {
    const day = new Date(h.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const body = {
      api_key: p.apiKey,
      sentto: numbers.join(', '),
      title: 'ACME',
      text: 'ç'.repeat(100),
      sms_lang: 1,
      scheduled_date: day,
      scheduled_time: '10:00',
    };
    assert.ok(JSON.stringify(body).length > 1024 * 1024, 'over the old 1 MiB limit');
    const answer = await h.post('/sms/send', body);
    assert.equal(answer.body.result_code, 'TS-1024', answer.raw.slice(0, 300));
    assert.equal(answer.body.total_recipients, 50_000);
  });

  it('/group/send to 50,000 numbers', async () => {
    const answer = await h.post('/group/send', { api_key: p.apiKey, sentto: numbers, title: 'ACME', text: 'hi' });
    assert.equal(answer.body.result_code, 'TS-1024', answer.raw.slice(0, 300));
    assert.equal(answer.body.total_numbers, 50_000);
  });

  it('/contacts/add with 50,000 numbers', async () => {
    const group = await h.post('/groups/create', { api_key: p.apiKey, name: 'Everyone' });
    const id = (group.body.group as { id: number }).id;
    const answer = await h.post('/contacts/add', { api_key: p.apiKey, group_id: id, mobile: numbers });
    assert.equal(answer.body.result_code, 'TS-1064', answer.raw.slice(0, 300));
    assert.equal(answer.body.total_added, 50_000);
  });
});
