import type { Command } from 'commander';
import type { Config } from '../config.js';
import { eventRef, webhookAdmin } from '../main.js';
import type { AppContainer, WebhookAdmin } from '../main.js';
import { CommandFailed, must } from './must.js';
import { parse } from './option-parsers.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** Commands that make an attempt take the sending options of `serve` (also from HABERCI_*). */
function sendingOptions(cmd: Command): Command {
  return cmd
    .option('--webhook-allow-private <bool>', 'allow private and loopback destinations (HABERCI_WEBHOOK_ALLOW_PRIVATE)')
    .option('--webhook-timeout-ms <n>', 'time limit of the attempt (HABERCI_WEBHOOK_TIMEOUT_MS)')
    .option(
      '--webhook-retry-base-ms <n>',
      'first delay of the default retry schedule, scaling every schedule (HABERCI_WEBHOOK_RETRY_BASE_MS)',
    );
}

async function withWebhooks<T>(
  container: AppContainer,
  config: Config,
  work: (admin: WebhookAdmin) => Promise<T>,
): Promise<T> {
  const hooks = webhookAdmin(container, config);
  try {
    return await work(hooks.admin);
  } finally {
    hooks.close();
  }
}

/** `key test-webhook`, `webhook deliveries` and `webhook redeliver`. */
export function webhookCommands(admin: Command, key: Command, leaf: Leaf, run: Run): void {
  sendingOptions(
    leaf(key, 'test-webhook', 'send a key.test event to the key\u2019s webhook now; prints its delivery record'),
  )
    .requiredOption('--id <n>', 'key id', parse.integer(1))
    .action((o: Options) =>
      run(o, (r, _o, config) => withWebhooks(r, config, (w) => must(w.testWebhook(o.id as number)))),
    );

  const webhook = admin.command('webhook').description('webhook deliveries');
  leaf(webhook, 'deliveries', 'recent events of a key (and of the keys it replaced), newest first, with every attempt')
    .requiredOption('--key <n>', 'key id', parse.integer(1))
    .option('--limit <n>', 'how many events', parse.integer(1, 1000), 20)
    .action((o: Options) =>
      run(o, (r, _o, config) => withWebhooks(r, config, (w) => must(w.deliveries(o.key as number, o.limit as number)))),
    );
  sendingOptions(
    leaf(
      webhook,
      'redeliver',
      'attempt an event once more, now, and print its delivery record; or, with --key and --since, queue every failed event of a key again',
    ),
  )
    .option('--event <id>', 'the event: its id or its event_id', parse.nonEmpty)
    .option('--key <n>', 'key id: queue its failed events (and those of the keys it replaced) again', parse.integer(1))
    .option('--since <time>', 'with --key: events created at or after this ISO 8601 time', parse.isoTime)
    .action((o: Options) => run(o, (r, _o, config) => withWebhooks(r, config, (w) => redeliver(w, o))));
}

/** One event now (`--event`), or every failed event of a key since a time (`--key --since`). */
function redeliver(admin: WebhookAdmin, o: Options): Promise<unknown> {
  const bulk = o.key !== undefined || o.since !== undefined;
  if (typeof o.event === 'string' && !bulk) return must(admin.redeliver(eventRef(o.event)));
  if (o.event === undefined && typeof o.key === 'number' && typeof o.since === 'number')
    return must(admin.redeliverFailed(o.key, o.since));
  return Promise.reject(new CommandFailed('give --event ID, or --key N with --since TIME'));
}
