import type { Carrier, CarrierListener, CarrierMessage, SubmitOutcome } from '../../src/ports/carrier.js';

/** A carrier that records every submit and answers as scripted (default: accept). */
export class RecordingCarrier implements Carrier {
  readonly submitted: CarrierMessage[] = [];
  listener: CarrierListener | null = null;
  private sequence = 0;

  constructor(
    readonly name = 'recording',
    private readonly answer: (m: CarrierMessage, attempt: number) => SubmitOutcome | Promise<SubmitOutcome> = () => ({
      kind: 'accepted',
      carrierMessageIds: [],
    }),
  ) {}

  async start(listener: CarrierListener): Promise<void> {
    this.listener = listener;
  }

  async submit(message: CarrierMessage): Promise<SubmitOutcome> {
    this.submitted.push(message);
    const attempt = this.submitted.filter((m) => m.messageId === message.messageId).length;
    const outcome = await this.answer(message, attempt);
    if (outcome.kind === 'accepted' && outcome.carrierMessageIds.length === 0) {
      this.sequence += 1;
      return { kind: 'accepted', carrierMessageIds: [`${this.name}-${message.messageId}-${this.sequence}`] };
    }
    return outcome;
  }

  async stop(): Promise<void> {
    this.listener = null;
  }
}
