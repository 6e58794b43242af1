import { createHarness } from './harness.js';

import type { CapturedExamples } from '../../src/http/openapi.js';
import { valueOf } from './results.js';

const placeholderKey = 'YOUR_API_KEY_30_TO_128_CHARACTERS_LONG';

/**
 * Real answers of a fresh server (in-memory store, fixed clock, sandbox key), one success
 * and one refusal per endpoint, in the order a new integrator meets them. The document's
 * examples are these (docs/openapi-examples.json, written by scripts/write-contract.mjs).
 */
export async function captureExamples(): Promise<CapturedExamples> {
  const h = await createHarness();
  try {
    const { apiKey, accountId } = await h.provision({ key: { sandbox: true } });
    const out: CapturedExamples = {};
    const call = async (path: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const answer = await h.post(path, { api_key: apiKey, ...fields });
      (out[path] ??= []).push({
        request: { api_key: placeholderKey, ...fields },
        status: answer.status,
        response: answer.body,
      });
      return answer.body;
    };
    const refusal = async (path: string, fields: Record<string, unknown>): Promise<void> => {
      const answer = await h.post(path, fields);
      (out[path] ??= []).push({ request: fields, status: answer.status, response: answer.body });
    };
    await call('/auth/post/check/', {});
    await call('/balance/', {});
    await call('/senderid/check', {});
    const sent = await call('/sms/send', {
      sentto: '905321234567',
      title: 'ACME',
      text: 'Your order has shipped',
      sms_lang: 0,
    });
    await call('/sms/status', { sms_id: sent.sms_id });
    const otp = await call('/otp/send', { mobile: '05321234567', digits: 6, sms_lang: 0 });
    await call('/otp/verify', { sms_id: otp.sms_id, code: otp.otp_code });
    await call('/otp/detailed', { mobile: '905321234567', title: 'ACME', text: 'Your code: TS-CODE', lang: 0 });
    const group = (await call('/groups/create', { name: 'Customers' })).group as { id: number };
    await call('/groups/edit', { group_id: group.id, name: 'Clients' });
    await call('/contacts/add', { group_id: group.id, mobile: ['905321234567', '905321234568'] });
    await call('/contacts/add', {
      group_id: group.id,
      contacts: [
        { mobile: '905321234567', fields: { name: 'Ayşe' } },
        { mobile: '905321234568', fields: { name: 'Mehmet' } },
      ],
    });
    const template = await call('/templates/create', { name: 'Welcome', text: 'Hello {{name}}, welcome aboard' });
    await call('/templates/list', {});
    await call('/groups/list', {});
    await call('/groups/delete', { group_id: group.id });
    await call('/blacklist/post/add', { number: '05321234569' });
    await call('/blacklist/post/status', { number: '905321234569' });
    const bulk = await call('/group/send', {
      title: 'ACME',
      sentto: ['905321234567', '905321234568'],
      text: 'Sale starts today',
    });
    await call('/group/sendMixed', {
      title: 'ACME',
      sentto: ['905321234567', '905321234568'],
      text: ['Hello Ayşe', 'Hello Mehmet'],
    });
    await call('/group/send', {
      title: 'ACME',
      sentto: ['905321234567', '905321234568'],
      template_id: template.template_id,
    });
    await call('/templates/delete', { template_id: template.template_id });
    await call('/reports/basic', { raporid: bulk.rapor_id });
    await call('/reports/detailed', { raporid: bulk.rapor_id, page: 1 });
    await call('/iys/consent/add', {
      consents: [
        {
          recipient: '905321234567',
          status: 'ONAY',
          recipient_type: 'BIREYSEL',
          source: 'HS_WEB',
          consent_date: '2026-03-01 10:00:00',
        },
        { recipient: '12', status: 'ONAY', recipient_type: 'BIREYSEL', source: 'HS_WEB', consent_date: '2026-03-01' },
      ],
    });
    await call('/iys/consent/status', { recipient: '05321234567', recipient_type: 'BIREYSEL' });
    await call('/group/send', {
      title: 'ACME',
      sentto: ['905321234567', '905321234568'],
      text: 'Sale starts today. RET yazip 4609 a gonderin',
      iys: 1,
      iys_recipient_type: 'BIREYSEL',
    });
    // A reseller's customer (the examples' account is made a reseller by the provider).
    await valueOf(h.runtime.admin.updateAccount(accountId, { reseller: true }, {}));
    const customer = await call('/subaccounts/create', { name: 'Kuzey Market' });
    await call('/subaccounts/fund', { account_id: customer.account_id, amount: 100 });
    await call('/subaccounts/fund', { account_id: customer.account_id, amount: -500 });
    await call('/subaccounts/list', {});
    await call('/subaccounts/status', { account_id: customer.account_id, status: 'Suspended' });
    await call('/subaccounts/update', { account_id: customer.account_id, refund_undelivered: 1 });
    await call('/subaccounts/usage', { account_id: customer.account_id, from: '2026-03-01', to: '2026-03-31' });
    const campaign = await call('/group/send', {
      title: 'ACME',
      sentto: ['905321234567', '905321234568'],
      text: 'Sale starts tomorrow',
      scheduled_sms: 1,
      scheduled_date: '2026-03-16',
      scheduled_time: '10:00',
    });
    await call('/group/pause', { rapor_id: campaign.rapor_id });
    await call('/group/resume', { rapor_id: campaign.rapor_id });
    await call('/group/cancel', { rapor_id: campaign.rapor_id });
    const scheduled = await call('/sms/send', {
      sentto: '905321234567',
      title: 'ACME',
      text: 'Your appointment is tomorrow',
      scheduled_date: '2026-03-16',
      scheduled_time: '09:00',
    });
    await call('/sms/cancel', { sms_id: scheduled.sms_id });
    for (const path of Object.keys(out)) await refusal(path, {});
    return out;
  } finally {
    await h.close();
  }
}
