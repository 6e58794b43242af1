import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { smscSimulator } from '../main.js';
import type { SmscSimulatorOptions } from '../main.js';
import { parse } from './option-parsers.js';
import { simulatorCommand } from './simulator-command.js';

/** `haberci smsc-sim`: an SMPP 3.4 SMSC on 127.0.0.1 for trying the SMPP carrier locally. */

/** The parsed options: those the simulator takes as they are, then those it takes reshaped. */
interface Raw extends Pick<
  SmscSimulatorOptions,
  'port' | 'systemId' | 'password' | 'receiptDelayMs' | 'throttleShare' | 'dropEvery' | 'statsPort'
> {
  inboundEveryMs?: number;
  inboundFrom: string;
  inboundTo: string;
  inboundText: string;
  receiptTlv: boolean;
  submitRespDelayMs: number;
}

function delayRange(raw: string): { min: number; max: number } {
  const match = /^(\d+)(?:-(\d+))?$/.exec(raw.trim());
  if (!match) throw new InvalidArgumentError('must be milliseconds, N or MIN-MAX.');
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) throw new InvalidArgumentError('MAX must not be below MIN.');
  return { min, max };
}

function share(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('must be a number from 0 to 1.');
  return n;
}

function toOptions(raw: Raw): SmscSimulatorOptions {
  const { inboundEveryMs, inboundFrom, inboundTo, inboundText, receiptTlv, ...asTaken } = raw;
  return {
    ...asTaken,
    inbound: inboundEveryMs
      ? { everyMs: inboundEveryMs, from: inboundFrom, to: inboundTo, text: inboundText }
      : undefined,
    receiptTlvs: receiptTlv,
    print: (line) => process.stdout.write(`${line}\n`),
  };
}

export function smscSimCommand(): Command {
  return simulatorCommand(
    'smsc-sim',
    'run an SMPP 3.4 SMSC simulator on 127.0.0.1 (outcome by the last four digits: 0000 UNDELIV, 0001 EXPIRED, 0002 no receipt, else DELIVRD)',
    (raw: Raw) => smscSimulator(toOptions(raw)),
  )
    .option('--port <n>', 'SMPP port', parse.integer(0, 65535), 2775)
    .option('--system-id <id>', 'require this system_id on bind (default: every system_id is accepted)')
    .option('--password <pw>', 'require this password on bind (default: every password is accepted)')
    .option('--receipt-delay-ms <ms>', 'delay before a delivery receipt: N or MIN-MAX', delayRange, {
      min: 300,
      max: 300,
    })
    .option('--throttle-share <x>', 'share of submits answered ESME_RTHROTTLED, 0..1, spread evenly', share, 0)
    .option(
      '--submit-resp-delay-ms <ms>',
      'hold each submit_sm_resp this long, keeping submits in flight',
      parse.integer(0, 600_000),
      0,
    )
    .option(
      '--drop-every <n>',
      'close a session, unanswered, on every Nth PDU it sends (0 = never)',
      parse.integer(0),
      0,
    )
    .option(
      '--inbound-every-ms <ms>',
      'send a mobile-originated message this often (off when absent)',
      parse.integer(1),
    )
    .option('--inbound-from <number>', 'MO sender', '905321112233')
    .option('--inbound-to <number>', 'MO recipient (our short code)', '4444')
    .option('--inbound-text <text>', 'MO text', 'Merhaba')
    .option('--no-receipt-tlv', 'receipts carry only the text form, no receipted_message_id/message_state TLVs')
    .option(
      '--stats-port <n>',
      'serve GET /stats (JSON counters) and GET /submits?to=NUMBER (the latest submits, as received) on 127.0.0.1:N',
      parse.integer(0, 65535),
    );
}
