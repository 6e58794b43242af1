import type {
  Carrier,
  CarrierLinks,
  CarrierListener,
  CarrierMessage,
  ConnectionState,
  SubmitOutcome,
} from '../../../ports/carrier.js';
import { systemClock } from '../../../ports/clock.js';
import type { Clock } from '../../../ports/clock.js';
import type { CarrierMetrics } from '../../../ports/metrics.js';
import { encodeForSubmit } from '../../../domain/sms-encoding.js';
import { smppAbsoluteTime } from '../../../domain/smpp-time.js';
import type { EncodedSms } from '../../../domain/sms-encoding.js';
import { deliverHandler } from './deliver-handler.js';
import { chooseRoute, preferredRoute } from './routing.js';
import { BindLeases } from './bind-leases.js';
import type { BindCluster } from './bind-leases.js';
import type { SmppCarrierConfig } from './smpp-config.js';
import { SmppConnection } from './smpp-connection.js';
import type { PartResult } from './smpp-connection.js';
import { silentLog } from './smpp-link.js';
import type { SmppLog } from './smpp-link.js';
import type { PduOptions } from '../../../smpp/smpp-wire.js';
import { isTransientStatus, outcomeOf, RETRY_AFTER_MS } from './submit-outcome.js';

/**
 * The SMPP 3.4 ESME carrier. Each message is routed to one connection (longest operator
 * prefix, else the default route, failing over to any bound connection), split into
 * parts, and each part submitted with registered_delivery 1.
 *
 * Duplicate bound: a part whose submit_sm_resp is lost (drop or submitTimeoutMs) comes
 * back as `retry`; if the SMSC had in fact taken it, the recipient gets the message
 * twice. Nothing is ever delivered more often than the pipeline submits it.
 *
 * Receipts are reported by carrier message id only; a receipt that arrives before our
 * submit() returned is matched later by the pipeline, which keeps unmatched reports.
 */

export interface SmppCarrierOptions {
  log?: SmppLog;
  clock?: Clock;
  /** Counts each connection's binds, submits, refusals and receipt lag (nothing by default). */
  metrics?: CarrierMetrics;
  /**
   * The processes of one store share the binds (docs/smpp.md, "Binds across a cluster"): a
   * connection binds here only while this process holds one of its places. Left out: every
   * connection binds (one bind each).
   */
  cluster?: BindCluster;
}

export type ConnectionStatus = ConnectionState;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class SmppCarrier implements Carrier {
  readonly name = 'smpp';
  private readonly sessions: SmppConnection[];
  private listener: CarrierListener | undefined;
  private stopped = false;
  private onLinks: ((links: CarrierLinks) => void) | undefined;
  /** Metrics are on: receipts pass by their connection first, which counts their lag. */
  private readonly counted: boolean;
  /** Concatenation reference, 0..255, varied per message so parts of neighbours never mix. */
  private reference = Math.floor(Math.random() * 256);
  /** The binds' leases in a cluster; null when this process binds alone. */
  private readonly leases: BindLeases | null;

  constructor(
    private readonly config: SmppCarrierConfig,
    options: SmppCarrierOptions = {},
  ) {
    const log = options.log ?? silentLog;
    const clock = options.clock ?? systemClock;
    const metrics = options.metrics;
    this.counted = metrics !== undefined;
    const onRequest = deliverHandler(
      () => this.listener,
      log,
      () => clock.now(),
    );
    this.sessions = config.connections.map((c, index) => {
      const counted = metrics?.connection(c.name, index, () => this.sessions[index]?.inFlight ?? 0);
      return new SmppConnection(
        c,
        config.submitTimeoutMs,
        onRequest,
        log,
        () => this.linksChanged(),
        counted,
        () => this.leases?.throttled(c.name, c.maxSubmitsPerSecond),
      );
    });
    this.leases = options.cluster
      ? new BindLeases(options.cluster, this.sessions, log, () => this.linksChanged())
      : null;
  }

  watchLinks(onChange: (links: CarrierLinks) => void): void {
    this.onLinks = onChange;
    this.linksChanged();
  }

  private linksChanged(): void {
    const leases = this.leases;
    const elsewhere = leases ? this.sessions.filter((c) => !c.isBound && leases.heldElsewhere(c.name)).length : 0;
    this.onLinks?.({
      bound: this.sessions.filter((c) => c.isBound).length,
      total: this.sessions.length,
      ...(leases ? { elsewhere } : {}),
    });
  }

  async start(listener: CarrierListener): Promise<void> {
    this.listener = this.counted
      ? {
          onReceipt: (receipt) => {
            for (const c of this.sessions) if (c.receiptFor(receipt.carrierMessageId)) break;
            return listener.onReceipt(receipt);
          },
          onInbound: (message) => listener.onInbound(message),
        }
      : listener;
    for (const connection of this.sessions) connection.start();
    await this.leases?.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.leases?.stop();
    await Promise.all(this.sessions.map((c) => c.stop()));
  }

  /** In a cluster: live messages are for the processes holding a bind (or for every process while none does). */
  takesWork(): boolean {
    return this.leases?.takesWork() ?? true;
  }

  capacity(): number {
    return this.sessions.reduce((n, c) => n + c.windowSize, 0);
  }

  connections(): ConnectionState[] {
    return this.status();
  }

  status(): ConnectionStatus[] {
    const leases = this.leases;
    return this.sessions.map((c) => ({
      name: c.name,
      bound: c.isBound,
      inFlight: c.inFlight,
      windowSize: c.windowSize,
      submits: c.submits,
      rate: c.rate,
      recentErrors: [...c.recentErrors],
      ...(leases
        ? {
            maxBinds: c.config.maxBinds,
            clusterRate: leases.rateOf(c.name, c.config.maxSubmitsPerSecond),
            binds: leases
              .leases()
              .filter((l) => l.connection === c.name)
              .map((l) => ({ slot: l.slot, owner: l.owner, mine: l.owner === leases.owner })),
          }
        : {}),
    }));
  }

  async submit(message: CarrierMessage): Promise<SubmitOutcome> {
    if (this.stopped) return { kind: 'retry', reason: 'SMPP carrier is stopping', afterMs: RETRY_AFTER_MS.connection };
    const deadline = Date.now() + this.config.giveUpAfterMs;
    let encoded: EncodedSms;
    try {
      encoded = encodeForSubmit(message.text, message.lang, this.nextReference());
    } catch (error) {
      if (error instanceof RangeError) return { kind: 'rejected', reason: error.message };
      throw error;
    }
    const ids: string[] = [];
    const total = encoded.parts.length;
    for (const [i, part] of encoded.parts.entries()) {
      const options = submitOptions(message, encoded, part);
      const result =
        i === 0
          ? await this.submitFirst(message.to, options, deadline)
          : await this.submitLater(message.to, options, deadline);
      if (result.kind !== 'accepted') return outcomeOf(result, total > 1 ? `part ${i + 1}/${total}: ` : '', i > 0);
      ids.push(result.messageId);
    }
    return { kind: 'accepted', carrierMessageIds: ids };
  }

  /**
   * In a cluster, a message whose route is bound by another process is that process's to
   * submit: none here (it goes back to the queue), and no failover while that bind lives.
   */
  private route(to: string): SmppConnection | undefined {
    if (this.leases?.heldElsewhere(preferredRoute(to, this.sessions, this.config.defaultRoute))) return undefined;
    return chooseRoute(to, this.sessions, this.config.defaultRoute);
  }

  /** Nothing is sent yet, so any refusal goes straight back to the pipeline. */
  private async submitFirst(to: string, options: PduOptions, deadline: number): Promise<PartResult> {
    const connection = this.route(to);
    return connection ? connection.submit(options, deadline) : { kind: 'unavailable' };
  }

  /**
   * Earlier parts are with the SMSC: a passing refusal (throttled, queue full, no room)
   * is retried here until the deadline rather than making the pipeline send them again.
   * A lost resp is not retried here: the SMSC may hold that part already.
   */
  private async submitLater(to: string, options: PduOptions, deadline: number): Promise<PartResult> {
    for (;;) {
      const result = await this.submitFirst(to, options, deadline);
      const passing = result.kind === 'unavailable' || (result.kind === 'status' && isTransientStatus(result.status));
      if (!passing) return result;
      const wait = result.kind === 'status' ? RETRY_AFTER_MS.throttled : 200;
      if (Date.now() + wait >= deadline || this.stopped) return result;
      await sleep(wait);
    }
  }

  private nextReference(): number {
    this.reference = (this.reference + 1) % 256;
    return this.reference;
  }
}

/** Digits-only senders are international numbers (TON 1, NPI 1); others are alphanumeric (TON 5). */
function submitOptions(message: CarrierMessage, encoded: EncodedSms, part: Buffer): PduOptions {
  const numeric = /^\d{1,15}$/.test(message.from);
  return {
    service_type: '',
    source_addr_ton: numeric ? 1 : 5,
    source_addr_npi: numeric ? 1 : 0,
    source_addr: message.from,
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: message.to,
    esm_class: encoded.esmClass,
    registered_delivery: 1,
    data_coding: encoded.dataCoding,
    short_message: part,
    // The send's validity (docs/decisions.md, "Send window, speed and validity"): the SMSC gives up then.
    ...(message.validUntil !== undefined ? { validity_period: smppAbsoluteTime(message.validUntil) } : {}),
  };
}
