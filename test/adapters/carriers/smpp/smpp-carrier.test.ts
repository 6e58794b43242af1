import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeForSubmit } from '../../../../src/domain/sms-encoding.js';
import { parseSmppTime } from '../../../../src/domain/smpp-time.js';
import type { SmppCarrier } from '../../../../src/adapters/carriers/smpp/smpp-carrier.js';
import type { SmscSimulator } from '../../../../src/adapters/carriers/smpp/smsc-simulator.js';
import { carrierConfig, message, RecordingListener, startCarrier, startSimulator } from './smpp-harness.js';
import { pause, waitFor } from '../../../helpers/wait-for.js';

/** Drops the 8-bit concatenation reference (octet 3 of the UDH), which the carrier picks. */
function withoutReference(part: Buffer, esmClass: number): string {
  if ((esmClass & 0x40) === 0 || part[1] !== 0x00) return part.toString('hex');
  const copy = Buffer.from(part);
  copy[3] = 0;
  return copy.toString('hex');
}

describe('SMPP carrier against the simulator: submits and receipts', () => {
  let sim: SmscSimulator;
  let carrier: SmppCarrier;
  let listener: RecordingListener;

  before(async () => {
    const started = await startSimulator();
    sim = started.sim;
    ({ carrier, listener } = await startCarrier(carrierConfig([started.port])));
  });
  after(async () => {
    await carrier.stop();
    await sim.stop();
  });

  const texts: Array<[string, string, 0 | 1 | 2]> = [
    ['lang 0 with extension characters', 'Price: 5€ [promo] {x}', 0],
    ['lang 1 Turkish', 'Şifreniz: 1234. İyi günler, Çağrı', 1],
    ['lang 2 with emoji', 'مرحبا 😀', 2],
    ['multi-part Turkish', 'Sayın müşterimiz, İstanbul şubemizde çağrı kaydınız oluşturuldu. '.repeat(4), 1],
  ];
  for (const [index, [name, text, lang]] of texts.entries()) {
    it(`submits ${name} with the encoder's bytes, one submit_sm per part`, async () => {
      const to = `90532120${index}555`;
      const outcome = await carrier.submit(message(to, text, lang));
      const expected = encodeForSubmit(text, lang, 0);
      assert.equal(outcome.kind, 'accepted');
      const got = sim.received.filter((r) => r.destination === to);
      assert.equal(got.length, expected.parts.length);
      assert.deepEqual(
        outcome.kind === 'accepted' && outcome.carrierMessageIds,
        got.map((r) => r.messageId),
      );
      for (const [i, r] of got.entries()) {
        assert.equal(r.dataCoding, expected.dataCoding);
        assert.equal(r.esmClass, expected.esmClass);
        assert.equal(r.registeredDelivery, 1);
        assert.equal(r.source, 'HABERCI');
        assert.equal(
          withoutReference(r.shortMessage, r.esmClass),
          withoutReference(expected.parts[i] ?? Buffer.alloc(0), expected.esmClass),
        );
      }
      if (got.length > 1) assert.equal(new Set(got.map((r) => r.udh?.[3])).size, 1, 'all parts share one reference');
    });
  }

  it("gives a message's validity as an absolute validity_period, and none without it", async () => {
    const until = Date.UTC(2026, 2, 16, 18, 30, 15, 400);
    const valid = await carrier.submit({ ...message('905321299555', 'Hello', 0), validUntil: until });
    const plain = await carrier.submit(message('905321299556', 'Hello', 0));
    assert.deepEqual([valid.kind, plain.kind], ['accepted', 'accepted']);
    const got = (to: string) => sim.received.find((r) => r.destination === to)?.validityPeriod;
    assert.equal(got('905321299555'), '260316183015400+');
    assert.equal(got('905321299556'), '');
    // The SMSC reads it back as the same instant (tenths of a second).
    assert.deepEqual(parseSmppTime(got('905321299555') ?? '', until), { kind: 'at', at: until });
  });

  it('maps receipts to delivered, failed and expired, and 0002 gets none', async () => {
    const ids = new Map<string, string>();
    for (const to of ['905321111234', '905321110000', '905321110001', '905321110002']) {
      const outcome = await carrier.submit(message(to));
      assert.equal(outcome.kind, 'accepted');
      if (outcome.kind === 'accepted') ids.set(to, outcome.carrierMessageIds[0] ?? '');
    }
    const reportFor = (to: string) => listener.reports.find((r) => r.carrierMessageId === ids.get(to));
    await waitFor('three receipts', () =>
      ['905321111234', '905321110000', '905321110001'].every((to) => reportFor(to)),
    );
    assert.equal(reportFor('905321111234')?.status, 'delivered');
    assert.equal(reportFor('905321110000')?.status, 'failed');
    assert.match(reportFor('905321110000')?.detail ?? '', /stat:UNDELIV err:001/);
    assert.equal(reportFor('905321110001')?.status, 'expired');
    // Receipts come 5..20 ms after submit; 0002's never does. Control: a message submitted
    // as the wait starts, after 0002, has its receipt within the same wait.
    const control = await carrier.submit(message('905321114321'));
    assert.equal(control.kind, 'accepted');
    if (control.kind === 'accepted') ids.set('905321114321', control.carrierMessageIds[0] ?? '');
    await pause(200);
    assert.equal(reportFor('905321114321')?.status, 'delivered', 'a receipt comes within the wait');
    assert.equal(reportFor('905321110002'), undefined);
  });

  it('reports one receipt per part of a multi-part message', async () => {
    const outcome = await carrier.submit(message('905321115555', 'x'.repeat(200), 2));
    assert.equal(outcome.kind, 'accepted');
    const ids = outcome.kind === 'accepted' ? outcome.carrierMessageIds : [];
    assert.equal(ids.length, 3);
    await waitFor('a receipt per part', () =>
      ids.every((id) => listener.reports.some((r) => r.carrierMessageId === id && r.status === 'delivered')),
    );
  });

  it('returns rejected with the status name for a permanent refusal', async () => {
    const outcome = await carrier.submit(message('not-a-number'));
    assert.equal(outcome.kind, 'rejected');
    assert.match(outcome.kind === 'rejected' ? outcome.reason : '', /ESME_RINVDSTADR \(0x0b\)/);
  });
});

describe('SMPP carrier: deliver_sm acknowledgement', () => {
  it('answers a receipt only after onReceipt resolves', async () => {
    const { sim, port } = await startSimulator();
    const listener = new RecordingListener();
    let release: () => void = () => undefined;
    let calls = 0;
    listener.hold = () => {
      calls++;
      return new Promise<void>((resolve) => (release = resolve));
    };
    const { carrier } = await startCarrier(carrierConfig([port]), listener);
    try {
      assert.equal((await carrier.submit(message('905321117777'))).kind, 'accepted');
      await waitFor('onReceipt called', () => calls === 1);
      await pause(150);
      assert.equal(sim.stats.receiptResps, 0, 'no deliver_sm_resp while onReceipt is pending');
      release();
      // Control: once onReceipt has resolved, the answer comes within a wait as long.
      await pause(150);
      assert.equal(sim.stats.receiptResps, 1, 'deliver_sm_resp after onReceipt resolved');
      assert.equal(listener.reports.length, 1);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('answers ESME_RX_T_APPN when onReceipt rejects, so the SMSC delivers again', async () => {
    const { sim, port } = await startSimulator({ receiptRetryMs: 50 });
    const listener = new RecordingListener();
    let attempts = 0;
    listener.hold = async () => {
      attempts++;
      if (attempts === 1) throw new Error('store unavailable');
    };
    const { carrier } = await startCarrier(carrierConfig([port]), listener);
    try {
      assert.equal((await carrier.submit(message('905321118888'))).kind, 'accepted');
      await waitFor(
        'receipt stored on the second delivery',
        () => listener.reports.length === 1 && sim.stats.receiptResps === 1,
      );
      assert.equal(sim.stats.receiptRespErrors, 1);
      assert.equal(attempts, 2);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('reads text-only receipts (no TLVs) the same way', async () => {
    const { sim, port } = await startSimulator({ receiptTlvs: false });
    const { carrier, listener } = await startCarrier(carrierConfig([port]));
    try {
      const outcome = await carrier.submit(message('905321110001'));
      const id = outcome.kind === 'accepted' ? outcome.carrierMessageIds[0] : 'none';
      await waitFor('receipt', () => listener.reports.length === 1);
      assert.deepEqual([listener.reports[0]?.carrierMessageId, listener.reports[0]?.status], [id, 'expired']);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('passes mobile-originated messages to onInbound, decoded', async () => {
    const { sim, port } = await startSimulator({
      inbound: { everyMs: 30, from: '905329998877', to: '4444', text: 'Merhaba, şeker ğ İ' },
    });
    const { carrier, listener } = await startCarrier(carrierConfig([port]));
    try {
      await waitFor('an inbound message', () => listener.inbound.length >= 1 && sim.stats.inboundResps >= 1);
      const first = listener.inbound[0];
      assert.deepEqual([first?.from, first?.to, first?.text], ['905329998877', '4444', 'Merhaba, şeker ğ İ']);
      assert.equal(typeof first?.receivedAt, 'number');
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('binds transmitter + receiver and gets receipts on the receiver', async () => {
    const { sim, port } = await startSimulator();
    const { carrier, listener } = await startCarrier(carrierConfig([port], {}, { bindMode: 'transmitter+receiver' }));
    try {
      assert.equal(sim.stats.binds, 2);
      const outcome = await carrier.submit(message('905321113333'));
      assert.equal(outcome.kind, 'accepted');
      await waitFor('receipt over the receiver', () => listener.reports.length === 1);
      assert.equal(listener.reports[0]?.status, 'delivered');
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });
});

describe('the simulator keeps the latest submits only', () => {
  it('holds between keepSubmits and twice that, the newest included', async () => {
    const { sim, port } = await startSimulator({ keepSubmits: 3 });
    const { carrier } = await startCarrier(carrierConfig([port]));
    try {
      const sent: string[] = [];
      for (let i = 0; i < 10; i++) {
        const to = `9053212${String(i).padStart(5, '0')}`;
        sent.push(to);
        assert.equal((await carrier.submit(message(to))).kind, 'accepted');
        assert.ok(
          sim.received.length >= Math.min(i + 1, 3) && sim.received.length < 6,
          `${sim.received.length} kept after ${i + 1} submits`,
        );
      }
      assert.equal(sim.received.at(-1)?.destination, sent.at(-1));
      assert.equal(sim.stats.submits, 10);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });
});

describe('the SMSC sets the pace (AIMD)', () => {
  it('lowers a connection’s rate when the SMSC answers ESME_RTHROTTLED, and shows it in the connection’s state', async () => {
    // Every submit throttled: the first answer halves the rate.
    const { sim, port } = await startSimulator({ throttleShare: 1 });
    const { carrier } = await startCarrier(carrierConfig([port], {}, { maxSubmitsPerSecond: 200 }));
    try {
      assert.equal(carrier.status()[0]?.rate, 200);
      const outcome = await carrier.submit(message('905321119999'));
      assert.equal(outcome.kind, 'retry');
      assert.equal(carrier.status()[0]?.rate, 100);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('keeps the configured rate while the SMSC accepts', async () => {
    const { sim, port } = await startSimulator();
    const { carrier } = await startCarrier(carrierConfig([port], {}, { maxSubmitsPerSecond: 200 }));
    try {
      for (let i = 0; i < 5; i++) assert.equal((await carrier.submit(message(`90532112${i}000`))).kind, 'accepted');
      assert.equal(carrier.status()[0]?.rate, 200);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });
});
