import { defaultKeySettings } from '../../src/services/admin.js';
import type { Harness, Provisioned } from './harness.js';
import { valueOf } from './results.js';

let unique = 0;

/**
 * A request each endpoint accepts (its handler answers success), for tests about what is
 * counted: a refused request is not counted against a key's limits, so these must pass
 * every check. What a request needs first (a message, a group, a report) is made with a
 * second key of the same account, so the key under test is used only for the request.
 */
export async function validRequest(h: Harness, p: Provisioned, path: string): Promise<Record<string, unknown>> {
  unique += 1;
  const helper = async (): Promise<string> =>
    (await valueOf(h.runtime.admin.createKey(p.accountId, defaultKeySettings))).api_key;
  const post = async (to: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
    (await h.post(to, { api_key: await helper(), ...body })).body;
  const group = async (): Promise<number> =>
    Number(((await post('/groups/create', { name: `g${unique}` })).group as { id: number }).id);
  const report = async (): Promise<number> =>
    Number((await post('/group/send', { title: 'ACME', sentto: ['05321234567'], text: 'hi' })).rapor_id);
  const number = `0532${String(1000000 + unique).slice(-7)}`;
  switch (path) {
    case '/sms/send':
      return { title: 'ACME', sentto: number, text: 'hi', sms_lang: 0 };
    case '/sms/status':
      return {
        sms_id: Number((await post('/sms/send', { title: 'ACME', sentto: number, text: 'hi', sms_lang: 0 })).sms_id),
      };
    case '/group/send':
      return { title: 'ACME', sentto: [number], text: 'hi' };
    case '/group/sendMixed':
      return { title: 'ACME', sentto: [number], text: ['hi'] };
    case '/otp/send':
      return { mobile: number };
    case '/otp/detailed':
      return { mobile: `9${number}`, title: 'ACME', text: 'Code TS-CODE' };
    case '/otp/verify': {
      const sent = await post('/otp/send', { mobile: number });
      return { sms_id: sent.sms_id, code: sent.otp_code };
    }
    case '/groups/create':
      return { name: `n${unique}` };
    case '/groups/edit':
      return { group_id: await group(), name: `e${unique}` };
    case '/groups/delete':
      return { group_id: await group() };
    case '/contacts/add':
      return { group_id: await group(), mobile: number };
    case '/blacklist/post/add':
      return { number };
    case '/blacklist/post/status':
      return { number };
    case '/reports/basic':
    case '/reports/detailed':
      return { raporid: await report() };
    case '/iys/consent/add':
      return {
        consents: [
          {
            recipient: number,
            status: 'ONAY',
            recipient_type: 'BIREYSEL',
            source: 'HS_WEB',
            consent_date: '2026-03-01 10:00:00',
          },
        ],
      };
    case '/templates/create':
      return { name: `t${unique}`, text: 'Hi {{name}}' };
    case '/templates/delete':
      return {
        template_id: Number((await post('/templates/create', { name: `d${unique}`, text: 'Bye' })).template_id),
      };
    case '/iys/consent/status':
      return { recipient: number };
    case '/subaccounts/create':
    case '/subaccounts/list':
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { reseller: true }, {}));
      return path === '/subaccounts/create' ? { name: `c${unique}` } : {};
    case '/subaccounts/fund':
      return { account_id: await customerOf(h, p), amount: 1 };
    case '/subaccounts/status':
      return { account_id: await customerOf(h, p), status: 'Suspended' };
    case '/subaccounts/usage':
      return { account_id: await customerOf(h, p), from: '2026-03-01', to: '2026-03-31' };
    case '/subaccounts/update':
      return { account_id: await customerOf(h, p), refund_undelivered: 1 };
    case '/sms/cancel':
      return {
        sms_id: Number((await post('/sms/send', { title: 'ACME', sentto: number, text: 'hi', sms_lang: 0 })).sms_id),
      };
    case '/group/cancel':
    case '/group/pause':
    case '/group/resume':
      return { rapor_id: await report() };
    default:
      return {};
  }
}

/** A customer of the provisioned account, made a reseller for it. */
async function customerOf(h: Harness, p: Provisioned): Promise<number> {
  await valueOf(h.runtime.admin.updateAccount(p.accountId, { reseller: true }, {}));
  const customer = await valueOf(
    h.runtime.admin.createAccount({
      name: `customer ${unique}`,
      balanceMain: 0,
      balanceInternational: 0,
      perMinuteLimit: 0,
      otpBrand: '',
      ipAllow: [],
      globalSending: false,
      parentId: p.accountId,
    }),
  );
  return customer.id;
}
