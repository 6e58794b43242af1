/** The options of `key create` and `key update`, and the settings they give. */
import type { Command } from 'commander';
import type { KeySettings } from '../ports/keys.js';
import type { PermissionSet } from '../domain/permissions.js';
import type { SelectableWebhookEvent } from '../domain/webhook.js';
import { MAX_WEBHOOK_BATCH, MAX_WEBHOOK_BATCH_WAIT_MS, MIN_WEBHOOK_BATCH } from '../domain/webhook-bucket.js';
import { parse } from './option-parsers.js';
import type { Options } from './admin-types.js';

export function keyOptions(cmd: Command): Command {
  return cmd
    .option('--permissions <list>', 'all, or comma-separated permission names', parse.permissions)
    .option('--ip-allow <cidrs>', 'key IP allowlist, comma-separated', parse.allowlist)
    .option('--hourly-limit <n>', 'requests per Istanbul hour, 0 = none', parse.integer(0))
    .option('--daily-limit <n>', 'requests per Istanbul day, 0 = none', parse.integer(0))
    .option('--monthly-limit <n>', 'requests per Istanbul month, 0 = none', parse.integer(0))
    .option('--expires <date>', 'valid until the end of this Istanbul day, YYYY-MM-DD', parse.date)
    .option('--webhook-url <url>', 'http(s) URL that receives events', parse.url)
    .option('--webhook-secret <text>', 'HMAC secret that signs events', parse.nonEmpty)
    .option('--webhook-attempts <n>', 'delivery attempts per event', parse.integer(1, 50))
    .option(
      '--webhook-events <list>',
      'events the webhook takes: all, or comma-separated from sms.sent, sms.delivered, sms.failed, sms.received',
      parse.webhookEvents,
    )
    .option(
      '--webhook-retry-schedule <list>',
      'delays between attempts, the last repeating: default (1m,10m,1h,6h), or comma-separated such as 30s,5m,2h',
      parse.retrySchedule,
    )
    .option(
      '--webhook-batch <n>',
      'events one webhook request carries at most: 1 (the default) posts each event alone, 2 to 100 post buckets {"events": [...]}',
      parse.integer(MIN_WEBHOOK_BATCH, MAX_WEBHOOK_BATCH),
    )
    .option(
      '--webhook-batch-wait-ms <n>',
      'how long a bucket that is not full waits for more events, in milliseconds (0 to 60000; default 0)',
      parse.integer(0, MAX_WEBHOOK_BATCH_WAIT_MS),
    )
    .option('--sandbox [bool]', 'sandbox key: simulator outcomes only', parse.bool);
}

export function keyPatch(o: Options): Partial<KeySettings> {
  const patch: Partial<KeySettings> = {};
  if (o.permissions !== undefined) patch.permissions = o.permissions as PermissionSet;
  if (o.ipAllow !== undefined) patch.ipAllow = o.ipAllow as string[];
  if (o.hourlyLimit !== undefined) patch.hourlyLimit = o.hourlyLimit as number;
  if (o.dailyLimit !== undefined) patch.dailyLimit = o.dailyLimit as number;
  if (o.monthlyLimit !== undefined) patch.monthlyLimit = o.monthlyLimit as number;
  if (o.expires !== undefined) patch.expiresOn = o.expires as string;
  if (o.webhookUrl !== undefined) patch.webhookUrl = o.webhookUrl as string;
  if (o.webhookSecret !== undefined) patch.webhookSecret = o.webhookSecret as string;
  if (o.webhookAttempts !== undefined) patch.webhookAttempts = o.webhookAttempts as number;
  if (o.webhookEvents !== undefined)
    patch.webhookEvents = o.webhookEvents === 'all' ? null : (o.webhookEvents as SelectableWebhookEvent[]);
  if (o.webhookRetrySchedule !== undefined)
    patch.webhookRetryScheduleMs = o.webhookRetrySchedule === 'default' ? null : (o.webhookRetrySchedule as number[]);
  if (o.webhookBatch !== undefined) patch.webhookBatch = o.webhookBatch as number;
  if (o.webhookBatchWaitMs !== undefined) patch.webhookBatchWaitMs = o.webhookBatchWaitMs as number;
  if (o.sandbox !== undefined) patch.sandbox = o.sandbox === true;
  return patch;
}
