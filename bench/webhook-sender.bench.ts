/**
 * Signed webhook sends per second through the HTTP sender to a local receiver answering
 * 200. Receiver and sender share one process and event loop, so the figure is a floor for
 * the sender alone. Each send builds and signs its own body, as the worker does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpWebhookSender } from '../src/adapters/webhooks/http-webhook-sender.js';
import { buildAttempt } from '../src/domain/webhook.js';

export interface WebhookSenderBenchOptions {
  count: number;
  concurrency: number;
}

async function startReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Length': '0' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function benchWebhookSender(
  opts: WebhookSenderBenchOptions,
): Promise<{ perSecond: number; delivered: number }> {
  const receiver = await startReceiver();
  const sender = new HttpWebhookSender({ allowPrivate: true });
  let next = 0;
  let delivered = 0;
  const worker = async (): Promise<void> => {
    while (next < opts.count) {
      const i = next++;
      const { body, headers } = buildAttempt(
        { eventId: `evt_${i}`, eventType: 'sms.delivered', smsId: i + 1 },
        Date.now(),
        'bench-secret',
      );
      const outcome = await sender.send({ url: receiver.url, body, headers, timeoutMs: 10_000 });
      if (outcome.ok) delivered++;
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  } finally {
    sender.close();
    await receiver.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: Math.round(delivered / seconds), delivered };
}
