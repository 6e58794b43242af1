/**
 * Webhook attempts over HTTP, for the courier of the webhook thread and for the provider's
 * webhook commands (the admin CLI, the panel).
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { WebhookMetrics } from '../ports/metrics.js';
import { retryScale } from '../domain/webhook.js';
import { WebhookDelivery } from '../services/webhook-delivery.js';
import { WebhookAdmin } from '../services/webhook-admin.js';
import { WebhookCourier, defaultWebhookCourierOptions } from '../jobs/webhook-courier.js';
import type { WebhookCourierOptions } from '../jobs/webhook-courier.js';
import { HttpWebhookSender } from '../adapters/webhooks/http-webhook-sender.js';
import type { AppContainer } from './container.js';

export type WebhookConfig = Pick<Config, 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryBaseMs'>;

/** Webhook attempts over HTTP, with the address guard unless private destinations are allowed. */
export function webhookDelivery(container: AppContainer, config: WebhookConfig): WebhookDelivery {
  const sender = new HttpWebhookSender({ allowPrivate: config.webhookAllowPrivate });
  return new WebhookDelivery(sender, container.clock, {
    timeoutMs: config.webhookTimeoutMs,
    backoff: { scale: retryScale(config.webhookRetryBaseMs) },
  });
}

/** The provider's webhook commands; close() releases the sender's connections. */
export function webhookAdmin(container: AppContainer, config: WebhookConfig): { admin: WebhookAdmin; close(): void } {
  const delivery = webhookDelivery(container, config);
  return { admin: new WebhookAdmin(container.store, delivery, container.clock), close: () => delivery.close() };
}

export interface WebhooksStart {
  container: AppContainer;
  config: WebhookConfig & Pick<Config, 'webhookConcurrency'> & Partial<Pick<Config, 'webhookDestinationConcurrency'>>;
  logger: Logger;
  /** Over the defaults and the configured concurrency. */
  options?: Partial<WebhookCourierOptions>;
  metrics?: WebhookMetrics | undefined;
}

/** The webhook courier of this thread, started; stop() finishes its attempts in flight. */
export function startWebhooks(start: WebhooksStart): { courier: WebhookCourier; stop(): Promise<void> } {
  const { container, config, logger, metrics } = start;
  const delivery = webhookDelivery(container, config);
  const courier = new WebhookCourier({
    store: container.store.events,
    delivery,
    clock: container.clock,
    log: logger,
    options: {
      ...defaultWebhookCourierOptions,
      concurrency: config.webhookConcurrency,
      ...((config.webhookDestinationConcurrency ?? 0) > 0
        ? { destinations: { concurrency: config.webhookDestinationConcurrency } }
        : {}),
      ...start.options,
    },
    wake: container.webhookWake,
    ...(metrics ? { metrics } : {}),
  });
  courier.start();
  return {
    courier,
    async stop() {
      await courier.stop();
      delivery.close();
    },
  };
}
