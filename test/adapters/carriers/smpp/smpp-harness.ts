import type { CarrierListener, CarrierMessage, CarrierReceipt, InboundSms } from '../../../../src/ports/carrier.js';
import { parseSmppConfig } from '../../../../src/adapters/carriers/smpp/smpp-config.js';
import type { SmppCarrierConfig, SmppCarrierConfigInput } from '../../../../src/adapters/carriers/smpp/smpp-config.js';
import { SmppCarrier } from '../../../../src/adapters/carriers/smpp/smpp-carrier.js';
import { SmscSimulator } from '../../../../src/adapters/carriers/smpp/smsc-simulator.js';
import type { SmscSimulatorOptions } from '../../../../src/adapters/carriers/smpp/smsc-simulator.js';
import { waitFor } from '../../../helpers/wait-for.js';

/** Shared pieces of the SMPP tests: simulator, carrier, a recording listener (waits: test/helpers/wait-for.ts). */

export async function startSimulator(
  options: Partial<SmscSimulatorOptions> = {},
): Promise<{ sim: SmscSimulator; port: number }> {
  const sim = new SmscSimulator({
    port: 0,
    receiptDelayMs: { min: 5, max: 20 },
    throttleShare: 0,
    dropEvery: 0,
    receiptRetryMs: 100,
    ...options,
  });
  const port = await sim.start();
  return { sim, port };
}

type ConnectionInput = SmppCarrierConfigInput['connections'][number];

export function carrierConfig(
  ports: number[],
  overrides: Partial<SmppCarrierConfigInput> = {},
  connection: Partial<ConnectionInput> = {},
): SmppCarrierConfig {
  const result = parseSmppConfig({
    connections: ports.map((port, i) => ({
      name: `c${i}`,
      host: '127.0.0.1',
      port,
      systemId: 'haberci',
      password: 'secret',
      reconnectMinMs: 20,
      reconnectMaxMs: 100,
      enquireLinkMs: 5000,
      maxSubmitsPerSecond: 1000,
      ...connection,
    })),
    defaultRoute: 'c0',
    submitTimeoutMs: 2000,
    giveUpAfterMs: 3000,
    ...overrides,
  });
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

export class RecordingListener implements CarrierListener {
  readonly reports: CarrierReceipt[] = [];
  readonly inbound: InboundSms[] = [];
  /** When set, onReceipt waits for it (and fails if it rejects) before recording. */
  hold: (() => Promise<void>) | undefined;

  async onReceipt(report: CarrierReceipt): Promise<void> {
    if (this.hold) await this.hold();
    this.reports.push(report);
  }

  async onInbound(message: InboundSms): Promise<void> {
    this.inbound.push(message);
  }
}

export async function startCarrier(
  config: SmppCarrierConfig,
  listener = new RecordingListener(),
): Promise<{ carrier: SmppCarrier; listener: RecordingListener }> {
  const carrier = new SmppCarrier(config);
  await carrier.start(listener);
  await waitFor('all connections bound', () => carrier.status().every((c) => c.bound));
  return { carrier, listener };
}

let nextMessageId = 1;
export function message(to: string, text = 'Hello', lang: 0 | 1 | 2 = 0): CarrierMessage {
  return { messageId: nextMessageId++, to, from: 'HABERCI', text, lang };
}
