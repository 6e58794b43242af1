import type { Carrier, CarrierListener, CarrierMessage, SubmitOutcome } from '../../../ports/carrier.js';
import type { Clock } from '../../../ports/clock.js';
import { refusedDetail, simulatedDetail, simulatedOutcome } from '../../../domain/simulator-outcome.js';

/** When a report the store could not take is delivered again (SMSCs retry in seconds to minutes). */
const redeliverAfterMs = 1000;

/**
 * The built-in operator: refuses a destination that is no phone number, as `smsc-sim`
 * does, accepts every other message and, after a delay, reports the outcome the number's
 * last four digits decide. It keeps no state of its own, so after a restart
 * it asks the store for the messages still waiting (`replayOwed`) and reports them again.
 */
export class SimulatorCarrier implements Carrier {
  readonly name = 'simulator';
  private listener: CarrierListener | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private sequence = 0;

  constructor(
    private readonly delayMs: number,
    private readonly clock: Clock,
  ) {}

  async start(listener: CarrierListener): Promise<void> {
    this.listener = listener;
  }

  async submit(message: CarrierMessage): Promise<SubmitOutcome> {
    if (!this.listener) return { kind: 'retry', reason: 'simulator not started' };
    if (simulatedOutcome(message.to) === 'refused')
      return { kind: 'rejected', reason: `Simulator refused the message: ${refusedDetail}` };
    this.sequence += 1;
    const carrierMessageId = `sim-${message.messageId}-${Date.now().toString(36)}-${this.sequence}`;
    this.scheduleReceipt(carrierMessageId, message.to);
    return { kind: 'accepted', carrierMessageIds: [carrierMessageId] };
  }

  /**
   * Reports again, once, for the messages `owed` names: those submitted before this process
   * started that never got their report. Read a report's delay and a redelivery after the
   * start, not at it: until then a message another live process submitted (on a shared
   * store) still waits for that process's own report, which would otherwise come twice.
   */
  replayOwed(owed: () => Promise<readonly { carrierMessageId: string; recipient: string }[]>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      owed().then(
        (parts) => {
          if (!this.listener) return;
          for (const p of parts) this.scheduleReceipt(p.carrierMessageId, p.recipient, 0);
        },
        () => {
          // The store is away: asked again after the same wait.
          if (this.listener) this.replayOwed(owed);
        },
      );
    }, this.delayMs + redeliverAfterMs);
    this.timers.add(timer);
  }

  private scheduleReceipt(carrierMessageId: string, to: string, delayMs = this.delayMs): void {
    const outcome = simulatedOutcome(to);
    if (outcome === 'no-report' || outcome === 'refused') return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const listener = this.listener;
      if (!listener) return;
      listener
        .onReceipt({ carrierMessageId, status: outcome, detail: simulatedDetail(outcome), doneAt: this.clock.now() })
        .catch(() => {
          // The store could not take the report (a database blip, or shutting down): as an
          // SMSC would, the simulator delivers it again later, and through replay() at the
          // next start if this process stops first.
          if (this.listener) this.scheduleReceipt(carrierMessageId, to, redeliverAfterMs);
        });
    }, delayMs);
    this.timers.add(timer);
  }

  async stop(): Promise<void> {
    this.listener = null;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
