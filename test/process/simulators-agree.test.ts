/**
 * The built-in operator simulator and `haberci smsc-sim` give the same outcome for every
 * number (interfaces.md's table, and a refusal for a destination that is no phone number),
 * and what they refuse is what the API refuses before a message gets to them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import type { Carrier } from '../../src/ports/carrier.js';
import { FixedClock } from '../../src/ports/clock.js';
import { SimulatorCarrier } from '../../src/adapters/carriers/simulator/simulator-carrier.js';
import { normaliseNumber } from '../../src/domain/recipients.js';
import { simulatedOutcome } from '../../src/domain/simulator-outcome.js';
import type { SimulatedOutcome } from '../../src/domain/simulator-outcome.js';
import { carrierConfig, message, RecordingListener, startCarrier } from '../adapters/carriers/smpp/smpp-harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { assertAccepted, assertRefused, sendSms } from '../helpers/sms.js';

/** Numbers as a customer sends them, each at least the 7 characters /sms/send asks for. */
const table: Array<[raw: string, expected: SimulatedOutcome]> = [
  ['+90 532 123 12 34', 'delivered'],
  ['0532 123 00 00', 'failed'],
  ['0090 542 123 0001', 'expired'],
  ['(0505) 123-0002', 'no-report'],
  ['+1 (202) 555-0100', 'delivered'],
  ['1234567', 'delivered'], // a wrong number: sent like any other
  ['123456789012345', 'delivered'], // 15 digits, the E.164 maximum
  ['1234567890120000', 'refused'], // 16 digits
  ['hello-world', 'refused'],
  ['0532 ABC 00 00', 'refused'],
  ['90532123456#', 'refused'],
];

/** Sent last: once its report is in, a report for any earlier message would be too (same delay, sent earlier). */
const control = '905329999999';

/** What a carrier does with each number: refused at submit, its report's state, or no report. */
async function observe(
  carrier: Carrier,
  listener: RecordingListener,
  numbers: readonly string[],
): Promise<SimulatedOutcome[]> {
  const ids: Array<string[] | null> = [];
  for (const n of numbers) {
    const outcome = await carrier.submit(message(n));
    assert.notEqual(outcome.kind, 'retry', `${n}: ${JSON.stringify(outcome)}`);
    ids.push(outcome.kind === 'accepted' ? outcome.carrierMessageIds : null);
  }
  const last = await carrier.submit(message(control));
  assert.equal(last.kind, 'accepted');
  const controlIds = last.kind === 'accepted' ? last.carrierMessageIds : [];
  await waitFor('the control message report', () =>
    listener.reports.some((r) => controlIds.includes(r.carrierMessageId)),
  );
  return ids.map((own) => {
    if (own === null) return 'refused';
    return listener.reports.find((r) => own.includes(r.carrierMessageId))?.status ?? 'no-report';
  });
}

async function startSmscSim(): Promise<{ child: ChildProcessWithoutNullStreams; smppPort: number; statsUrl: string }> {
  const child = spawn(process.execPath, [
    'bin/haberci',
    'smsc-sim',
    '--port',
    '0',
    '--stats-port',
    '0',
    '--receipt-delay-ms',
    '5',
  ]);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await waitFor('smsc-sim to listen', () => /stats on http/.test(out), { timeoutMs: 10_000 });
  return {
    child,
    smppPort: Number(/127\.0\.0\.1:(\d+)\n/.exec(out)?.[1]),
    statsUrl: /(http:\/\/127\.0\.0\.1:\d+\/stats)/.exec(out)?.[1] ?? 'missing',
  };
}

describe('the two simulators', () => {
  const normalised = table.map(([raw]) => normaliseNumber(raw));
  const expected = table.map(([, outcome]) => outcome);

  it("follow one rule: the built-in simulator's outcome function", () => {
    assert.deepEqual(normalised.map(simulatedOutcome), expected);
  });

  it('the built-in simulator carrier submits and reports by that rule', async () => {
    const carrier = new SimulatorCarrier(5, new FixedClock(Date.UTC(2026, 2, 15, 9)));
    const listener = new RecordingListener();
    await carrier.start(listener);
    try {
      assert.deepEqual(await observe(carrier, listener, normalised), expected);
    } finally {
      await carrier.stop();
    }
  });

  it('haberci smsc-sim refuses, receipts and stays silent for the same numbers', async () => {
    const { child, smppPort, statsUrl } = await startSmscSim();
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    try {
      const { carrier, listener } = await startCarrier(carrierConfig([smppPort]));
      try {
        assert.deepEqual(await observe(carrier, listener, normalised), expected);
      } finally {
        await carrier.stop();
      }
      // The refusals are the simulator's answers, not the carrier declining to submit.
      const stats = (await (await fetch(statsUrl)).json()) as { submits: number; submitsAccepted: number };
      const refused = expected.filter((o) => o === 'refused').length;
      assert.deepEqual([stats.submits, stats.submitsAccepted], [table.length + 1, table.length + 1 - refused]);
      child.kill('SIGTERM');
      await once(child, 'exit');
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('/sms/send refuses what the simulators refuse', () => {
  let h: Harness;
  let apiKey = '';
  before(async () => {
    h = await createHarness();
    apiKey = (await h.provision()).apiKey;
  });
  after(async () => h.close());

  for (const [raw, outcome] of table) {
    const refused = outcome === 'refused';
    it(`${JSON.stringify(raw)}: ${refused ? 'TS-1025' : 'accepted'}`, async () => {
      const answer = await sendSms(h, apiKey, { sentto: raw });
      if (refused) assertRefused(answer, 'TS-1025', 400);
      else assertAccepted(answer);
    });
  }
});
