/**
 * The audit rows of `haberci admin` commands: actor `cli`, the OS user as the
 * address. A command that changes something writes its row once its change is done (the
 * commands' services run their own transactions: see decisions.md, "Provider console");
 * reads (show, list, deliveries) and `store init` write none. Particulars come from a short
 * list of options; secrets (passwords, webhook secrets, keys) are never among them, and
 * AuditLog drops any that would look like one.
 */
import { userInfo } from 'node:os';
import type { AppContainer, AuditFact, DetailValue } from '../main.js';
import type { Options } from './admin-types.js';

/** The commands that change something, as `noun.verb`. */
const changing = new Set([
  'account.create',
  'account.update',
  'account.topup',
  'account.debit',
  'account.otp',
  'sender-id.add',
  'sender-id.remove',
  'sender-id.approve',
  'sender-id.reject',
  'user.create',
  'user.disable',
  'user.reset-password',
  'key.create',
  'key.update',
  'key.pause',
  'key.reactivate',
  'key.revoke',
  'key.rotate',
  'key.test-webhook',
  'key.otp',
  'otp.release',
  'webhook.redeliver',
  'inbound-route.add',
  'inbound-route.remove',
  'blocklist.remove',
  'smpp-user.create',
  'smpp-user.disable',
  'reseller.brand',
]);

const otpSettingOptions = [
  'validity',
  'tries',
  'countries',
  'perNumberHour',
  'perNumberDay',
  'perPrefixMinute',
  'prefixRise',
  'prefixRiseMin',
  'cooldown',
  'watchMinSent',
  'watchMinShare',
  'watchRise',
];

/** Options worth recording, by their printed name (never a secret: none of these is one). */
const recorded: Record<string, string> = {
  name: 'name',
  status: 'status',
  reseller: 'reseller',
  refundUndelivered: 'refund_undelivered',
  parent: 'parent_id',
  balance: 'balance',
  internationalBalance: 'international_balance',
  amount: 'amount',
  international: 'international',
  reason: 'reason',
  title: 'title',
  email: 'email',
  provider: 'provider',
  number: 'number',
  keepOld: 'keep_old',
  sandbox: 'sandbox',
  expires: 'expires',
  event: 'event',
  systemId: 'system_id',
  validity: 'otp_validity',
  tries: 'otp_tries',
  perNumberHour: 'otp_per_number_hour',
  perNumberDay: 'otp_per_number_day',
  perPrefixMinute: 'otp_per_prefix_minute',
  prefixRise: 'otp_prefix_rise',
  prefixRiseMin: 'otp_prefix_rise_min',
  cooldown: 'otp_cooldown',
  watchMinSent: 'otp_watch_min_sent',
  watchMinShare: 'otp_watch_min_share',
  watchRise: 'otp_watch_rise',
  prefix: 'prefix',
  host: 'host',
  color: 'color',
  support: 'support',
};

function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

const numberOf = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : null;

function field(result: unknown, name: string): unknown {
  return result !== null && typeof result === 'object' && name in result
    ? (result as Record<string, unknown>)[name]
    : undefined;
}

/** The account of a key; null when there is no such key. */
async function keyAccount(container: AppContainer, keyId: number): Promise<number | null> {
  const key = await container.admin.key(keyId);
  return key.ok ? key.value.accountId : null;
}

async function factOf(container: AppContainer, command: string, o: Options, result: unknown): Promise<AuditFact> {
  const [noun = ''] = command.split('.');
  const detail: Record<string, DetailValue> = {};
  for (const [option, name] of Object.entries(recorded)) {
    const value = o[option];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') detail[name] = value;
  }
  // OTP countries are parsed to a list (empty: every country).
  if (Array.isArray(o.countries)) detail.otp_countries = o.countries.length === 0 ? 'all' : o.countries.join(',');
  let accountId =
    numberOf(field(result, 'account_id')) ??
    (noun === 'account' ? numberOf(field(result, 'id')) : null) ??
    numberOf(o.account);
  // A rotation prints the new key; the row names the key rotated, and the account is the key's.
  const objectId =
    noun === 'key' || noun === 'user' || noun === 'sender-id' || noun === 'account' || noun === 'smpp-user'
      ? (numberOf(o.id) ?? numberOf(field(result, 'id')))
      : null;
  if (accountId === null && noun === 'key' && objectId !== null) accountId = await keyAccount(container, objectId);
  if (command === 'key.rotate') detail.new_id = numberOf(field(result, 'id'));
  // A release names the key whose hold it released.
  const releasedKey = command === 'otp.release' ? numberOf(o.key) : null;
  const object =
    releasedKey !== null
      ? { type: 'key', id: releasedKey }
      : objectId !== null
        ? { type: noun, id: objectId }
        : typeof o.number === 'string' && noun === 'inbound-route'
          ? { type: noun, id: o.number }
          : undefined;
  return { action: command, accountId, ...(object ? { object } : {}), detail };
}

/** Writes the audit row of an admin command that changed something (none for reads). */
export async function recordCliAudit(
  container: AppContainer,
  command: string | null,
  o: Options,
  result: unknown,
): Promise<void> {
  if (command === null || !changing.has(command)) return;
  // `key otp` without a setting only shows them.
  if (command === 'key.otp' && !otpSettingOptions.some((name) => o[name] !== undefined)) return;
  if (command === 'account.otp' && o.countries === undefined) return;
  // `reseller brand` without a change only shows it.
  if (command === 'reseller.brand' && ['name', 'host', 'logo', 'color', 'support'].every((n) => o[n] === undefined))
    return;
  await container.audit.record({ kind: 'cli', osUser: osUser() }, await factOf(container, command, o, result));
}
