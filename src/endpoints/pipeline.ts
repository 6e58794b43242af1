import type { KeyWithAccount } from '../ports/keys.js';
import type { Endpoint, Reply } from './endpoint.js';
import { firstCode, firstDetail } from './fields.js';
import { isResultCode } from '../domain/result-codes.js';
import { permissionOffCode } from '../domain/permissions.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { Caller } from '../services/auth.js';
import type { Services } from '../services/services.js';
import { issueMessage } from './issue-message.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where a request notes its caller once known (the API's access log reads it): the Fastify request. */
export interface CallerNote {
  apiCaller?: Caller | null;
}

/** A key's hash computed earlier in the request (by the rate limiter), with the key it is of. */
export interface KeyHash {
  apiKey: string;
  hash: string;
  /** The key's lookup, started early (beside a shared rate count): authentication awaits it instead of looking the key up again. */
  found?: Promise<KeyWithAccount | null>;
}

/**
 * A JSON body sent as a form (curl's `-d` without `Content-Type: application/json`) reads
 * as one form field named after the whole JSON text.
 */
function looksLikeJsonSentAsForm(body: Record<string, unknown>): boolean {
  const names = Object.keys(body);
  return names.length === 1 && /^\s*[{[]/.test(names[0] ?? '');
}

function keyRange(endpoint: Endpoint): string {
  return endpoint.key.max >= 1000 ? `at least ${endpoint.key.min}` : `${endpoint.key.min} to ${endpoint.key.max}`;
}

/**
 * The checks that need only the key, in the documented order: api_key's rule, the key and
 * its account, then the endpoint's permissions. They run before a large body is read to its
 * end (a refused key is answered at once) and again, from caches, for every request.
 */
export async function admit(
  endpoint: Endpoint,
  body: Record<string, unknown>,
  clientIp: string,
  services: Services,
  keyHash?: KeyHash,
): Promise<Result<Caller>> {
  const apiKey = body.api_key;
  if (apiKey === undefined || apiKey === null || apiKey === '') {
    const message = looksLikeJsonSentAsForm(body)
      ? 'api_key is missing: the body looks like JSON but was not sent with Content-Type: application/json'
      : 'api_key is missing';
    return fail(endpoint.key.missing, { variant: 'key-missing', message });
  }
  if (typeof apiKey !== 'string')
    return fail(endpoint.key.malformed, {
      variant: 'key-malformed',
      message: `api_key must be a string (${keyRange(endpoint)} characters), not a ${Array.isArray(apiKey) ? 'array' : typeof apiKey}`,
    });
  if (apiKey.length < endpoint.key.min || apiKey.length > endpoint.key.max) {
    return fail(endpoint.key.malformed, {
      variant: 'key-malformed',
      message: `api_key must be ${keyRange(endpoint)} characters long`,
    });
  }

  const same = keyHash?.apiKey === apiKey;
  const auth = await services.auth.authenticate(
    apiKey,
    clientIp,
    same ? keyHash.hash : undefined,
    same ? keyHash.found : undefined,
  );
  if (!auth.ok) {
    if (auth.variant === 'account-inactive' && endpoint.accountInactive)
      return fail(endpoint.accountInactive, { variant: 'account-inactive' });
    return auth;
  }
  return permitted(endpoint, auth.value);
}

/** The endpoint's permissions, checked on a caller already authenticated. */
export function permitted(endpoint: Endpoint, caller: Caller): Result<Caller> {
  for (const permission of endpoint.permissions) {
    if (!caller.key.permissions[permission]) return fail(permissionOffCode[permission], { variant: 'permission' });
  }
  return ok(caller);
}

/**
 * One request through one endpoint, in the documented order: body shape, api_key rule,
 * key and account, permissions, fields, request limits, then the handler. A request is
 * counted against the key's limits only once it passed every other check, and the count is
 * taken back if the handler refuses it: rejected requests are not counted (spec, Limits;
 * docs/decisions.md).
 */
export async function runEndpoint(
  endpoint: Endpoint,
  rawBody: unknown,
  clientIp: string,
  services: Services,
  keyHash?: KeyHash,
  note?: CallerNote,
): Promise<Result<Reply>> {
  // No body at all is an empty request (a missing key); JSON `null` is a body that is not
  // an object, like an array or a number.
  const body = rawBody === undefined || rawBody === '' ? {} : rawBody;
  if (!isPlainObject(body))
    return fail(endpoint.invalidBody, { variant: 'body', message: 'The body must be a JSON object (or form fields)' });

  const admitted = await admit(endpoint, body, clientIp, services, keyHash);
  if (!admitted.ok) return admitted;
  const caller = admitted.value;
  if (note) note.apiCaller = caller;
  return runAdmitted(endpoint, body, caller, services);
}

/**
 * The rest of a request once its caller is admitted: fields, request limits, then the
 * handler. The SMPP server (src/smpp-server/) enters here too, so a submit_sm is one
 * /sms/send through the same checks.
 */
export async function runAdmitted(
  endpoint: Endpoint,
  body: Record<string, unknown>,
  caller: Caller,
  services: Services,
): Promise<Result<Reply>> {
  const parsed = endpoint.request.safeParse(body);
  if (!parsed.success) {
    const code = firstCode(parsed.error, endpoint.invalidBody, isResultCode);
    const message = firstDetail(parsed.error) ?? issueMessage(parsed.error, code, body);
    return fail(code, { variant: 'field', ...(message === undefined ? {} : { message }) });
  }

  let undo: (() => Promise<void>) | null = null;
  if (endpoint.limited) {
    const counted = await services.auth.countRequest(caller);
    if ('refused' in counted) return counted.refused;
    undo = counted.undo;
  }
  const result = await endpoint.handle({ body: parsed.data, caller, services });
  if (!result.ok && undo) await undo();
  return result;
}
