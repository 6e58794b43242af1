import { defineEndpoint } from './endpoint.js';
import { authCheckReply } from './replies.js';
import { noFields } from './fields.js';
import { permissionFields } from '../domain/permissions.js';
import { localDateTime } from '../domain/istanbul-time.js';
import { ok } from '../domain/result.js';

/** POST /auth/post/check/: reports the key's permissions and the account summary. */
export const authPostCheck = defineEndpoint({
  path: '/auth/post/check/',
  summary: 'Check an API key and read the account summary',
  reply: authCheckReply,
  envelope: 'result',
  key: { min: 20, max: 128, missing: 'TS-1031', malformed: 'TS-1031' },
  invalidBody: 'TS-1031',
  serverError: 'TS-5000',
  permissions: [],
  // The key check is a diagnostic: it lists no 429 codes, so the request limits neither
  // apply to it nor count it (docs/decisions.md).
  limited: false,
  statuses: {
    'TS-1031:key-missing': 401,
    'TS-1031:key-malformed': 401,
    'TS-1031:body': 401,
    'TS-1031': 400,
    'TS-1030': 400,
    'TS-1035': 403,
    'TS-1066': 403,
    'TS-1060:rate': 429,
    'TS-5000': 500,
  },
  request: noFields,
  async handle({ caller, services }) {
    const { key, account, clientIp } = caller;
    return ok({
      code: 'TS-1000',
      fields: {
        key_details: { status: 'Active', permissions: permissionFields(key.permissions) },
        account_summary: {
          account_status: account.status,
          balance: { main: account.balanceMain, international: account.balanceInternational },
          global_sending: account.globalSending,
        },
        audit_info: { request_ip: clientIp, checked_at: localDateTime(services.clock.now()) },
      },
    });
  },
});
