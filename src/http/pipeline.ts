import type { Endpoint, Reply } from '../endpoints/endpoint.js';
import { firstCode, firstDetail } from '../endpoints/fields.js';
import { isResultCode } from '../domain/result-codes.js';
import { permissionOffCode } from '../domain/permissions.js';
import { fail } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { Services } from '../services/services.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key's hash computed earlier in the request (by the rate limiter), with the key it is of. */
export interface KeyHash {
  apiKey: string;
  hash: string;
}

/**
 * One request through one endpoint, in the documented order: body shape, api_key rule,
 * key and account, request limits, permissions, fields, then the handler.
 */
export async function runEndpoint(endpoint: Endpoint, rawBody: unknown, clientIp: string, services: Services, keyHash?: KeyHash): Promise<Result<Reply>> {
  // No body at all is an empty request (a missing key); JSON `null` is a body that is not
  // an object, like an array or a number.
  const body = rawBody === undefined || rawBody === '' ? {} : rawBody;
  if (!isPlainObject(body)) return fail(endpoint.invalidBody, { variant: 'body' });

  const apiKey = body.api_key;
  if (apiKey === undefined || apiKey === null || apiKey === '') return fail(endpoint.key.missing, { variant: 'key-missing' });
  if (typeof apiKey !== 'string' || apiKey.length < endpoint.key.min || apiKey.length > endpoint.key.max) {
    return fail(endpoint.key.malformed, { variant: 'key-malformed' });
  }

  const auth = await services.auth.authenticate(apiKey, clientIp, keyHash?.apiKey === apiKey ? keyHash.hash : undefined);
  if (!auth.ok) {
    if (auth.variant === 'account-inactive' && endpoint.accountInactive) return fail(endpoint.accountInactive, { variant: 'account-inactive' });
    return auth;
  }
  const caller = auth.value;

  if (endpoint.limited) {
    const limited = await services.auth.countRequest(caller);
    if (limited) return limited;
  }

  for (const permission of endpoint.permissions) {
    if (!caller.key.permissions[permission]) return fail(permissionOffCode[permission], { variant: 'permission' });
  }

  const parsed = endpoint.request.safeParse(body);
  if (!parsed.success) {
    const detail = firstDetail(parsed.error);
    return fail(firstCode(parsed.error, endpoint.invalidBody, isResultCode), { variant: 'field', ...(detail === undefined ? {} : { message: detail }) });
  }

  return endpoint.handle({ body: parsed.data, caller, services });
}
