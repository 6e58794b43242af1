import { InvalidArgumentError } from 'commander';
import { invalidAllowlistEntries, splitAllowlist } from '../domain/ip-allowlist.js';
import { parseDate } from '../domain/istanbul-time.js';
import { parsePermissionList } from '../domain/permissions.js';
import type { PermissionSet } from '../domain/permissions.js';
import { parseRetrySchedule, parseWebhookEventList, SELECTABLE_WEBHOOK_EVENTS } from '../domain/webhook.js';
import type { SelectableWebhookEvent } from '../domain/webhook.js';

/** Option value parsers for the CLI: a bad value is refused before anything changes. */
export const parse = {
  integer:
    (min: number, max = Number.MAX_SAFE_INTEGER) =>
    (raw: string): number => {
      if (!/^-?\d+$/.test(raw.trim())) throw new InvalidArgumentError('must be a whole number.');
      const n = Number(raw);
      if (n < min || n > max) throw new InvalidArgumentError(`must be between ${min} and ${max}.`);
      return n;
    },
  bool: (raw: string): boolean => {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new InvalidArgumentError('must be true or false.');
  },
  allowlist: (raw: string): string[] => {
    const list = splitAllowlist(raw);
    const bad = invalidAllowlistEntries(list);
    if (bad.length > 0) throw new InvalidArgumentError(`not an IP address or CIDR range: ${bad.join(', ')}.`);
    return list;
  },
  /** An ISO 8601 date or date-time (a date alone is midnight UTC; no zone is local time); milliseconds. */
  isoTime: (raw: string): number => {
    const ms = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw.trim())
      ? Date.parse(raw.trim())
      : NaN;
    if (Number.isNaN(ms)) throw new InvalidArgumentError('must be an ISO 8601 time such as 2026-11-24T09:00:00Z.');
    return ms;
  },
  date: (raw: string): string => {
    if (!parseDate(raw)) throw new InvalidArgumentError('must be a real date YYYY-MM-DD.');
    return raw;
  },
  permissions: (raw: string): PermissionSet => {
    const set = parsePermissionList(raw);
    if ('unknown' in set)
      throw new InvalidArgumentError(
        `unknown permission "${set.unknown}" (use all, or names such as send_single_sms,check_balance).`,
      );
    return set;
  },
  // 'all', not null: commander turns an option value of null into ''.
  webhookEvents: (raw: string): SelectableWebhookEvent[] | 'all' => {
    const parsed = parseWebhookEventList(raw);
    if ('unknown' in parsed)
      throw new InvalidArgumentError(
        `unknown event "${parsed.unknown}" (use all, or names from ${SELECTABLE_WEBHOOK_EVENTS.join(', ')}).`,
      );
    return parsed.events ?? 'all';
  },
  // 'default', not null, for the same reason.
  retrySchedule: (raw: string): number[] | 'default' => {
    const parsed = parseRetrySchedule(raw);
    if ('error' in parsed) throw new InvalidArgumentError(`${parsed.error}; or default.`);
    return parsed.scheduleMs ?? 'default';
  },
  url: (raw: string): string => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidArgumentError('must be an http:// or https:// URL.');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new InvalidArgumentError('must be an http:// or https:// URL.');
    return raw;
  },
  nonEmpty: (raw: string): string => {
    if (raw.trim() === '') throw new InvalidArgumentError('must not be empty.');
    return raw;
  },
  oneOf:
    <T extends string>(values: readonly T[]) =>
    (raw: string): T => {
      const found = values.find((v) => v === raw);
      if (found === undefined) throw new InvalidArgumentError(`must be one of ${values.join(', ')}.`);
      return found;
    },
};
