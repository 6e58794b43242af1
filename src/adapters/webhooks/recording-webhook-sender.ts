/**
 * The in-repo fake beside the HTTP sender: records every request and answers from a
 * script, so delivery tests can play a receiver that fails, recovers or times out without
 * a network.
 */
import type { AttemptOutcome, WebhookRequest, WebhookSender } from '../../ports/webhook-sender.js';

/** Decides the outcome of the request at `index` (0-based, over all requests so far). */
export type OutcomeScript = (request: WebhookRequest, index: number) => AttemptOutcome;

export const acknowledge = (status = 200): AttemptOutcome => ({
  ok: status >= 200 && status < 300,
  status,
  error: null,
  durationMs: 1,
});

export const failWith = (error: string): AttemptOutcome => ({ ok: false, status: null, error, durationMs: 1 });

export class RecordingWebhookSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];

  constructor(private readonly script: OutcomeScript = () => acknowledge()) {}

  async send(request: WebhookRequest): Promise<AttemptOutcome> {
    this.requests.push(request);
    return this.script(request, this.requests.length - 1);
  }
}
