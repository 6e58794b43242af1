/**
 * The provider console's traffic and carriers views (ProviderLive) over a store and a
 * connections source of the test's: minutes filled in with zeros, expired counted as failed,
 * receivers ranked by p95 and named by host only (never a path or query, which may carry a
 * token), failing keys by their failures, and a connection's submit rate between two looks.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderLive } from '../../src/services/panel/provider/provider-live.js';
import type { AttemptSample, MonitoringStore, TrafficMinute } from '../../src/ports/monitoring-store.js';
import type { ConnectionState } from '../../src/ports/carrier.js';

const minute = 29_000_000;
const now = minute * 60_000 + 30_000;

function storeWith(rows: TrafficMinute[], attempts: AttemptSample[]): MonitoringStore {
  return {
    backlog: async () => ({
      dispatchDue: 4,
      scheduled: 5,
      webhookPending: 6,
      webhookOldestAt: now - 1000,
      otpHeldPrefixes: 2,
    }),
    addTraffic: async () => undefined,
    traffic: async (from) => rows.filter((r) => r.minute >= from),
    forgetTrafficBefore: async () => undefined,
    attemptsSince: async () => attempts,
  };
}

const attempt = (url: string, durationMs: number, ok: boolean, keyId: number): AttemptSample => ({
  url,
  durationMs,
  startedAt: now - 10_000,
  ok,
  keyId,
  accountId: keyId * 10,
});

describe('ProviderLive', () => {
  it('fills the window minute by minute, sums expired into failed, and ranks receivers by host and keys by failures', async () => {
    const rows = [
      { minute: minute - 2, accepted: 5, submitted: 5, delivered: 3, failed: 1, expired: 1 },
      { minute, accepted: 2, submitted: 1, delivered: 0, failed: 0, expired: 0 },
    ];
    // Newest first, as the store gives them.
    const attempts = [
      attempt('https://slow.example.com/hook?token=s3cret', 900, false, 7),
      attempt('https://fast.example.com/h', 20, true, 8),
      attempt('https://slow.example.com/hook?token=s3cret', 100, true, 7),
      attempt('https://fast.example.com/h', 30, false, 8),
      attempt('https://slow.example.com/other', 1200, false, 7),
    ];
    const live = new ProviderLive(
      storeWith(rows, attempts),
      async () => [],
      () => now,
    );
    const view = await live.traffic(1);
    assert.equal(view.minutes.at.length, 60);
    assert.equal(view.minutes.at.at(-1), minute * 60);
    assert.equal(view.minutes.accepted.at(-1), 2);
    assert.equal(view.minutes.failed.at(-3), 2, 'failed and expired together');
    assert.equal(view.minutes.accepted.filter((v) => v === 0).length, 58);
    assert.deepEqual(view.totals, { accepted: 7, submitted: 6, delivered: 3, failed: 1, expired: 1 });
    assert.deepEqual(view.backlog, {
      dispatchDue: 4,
      scheduled: 5,
      webhookPending: 6,
      webhookOldestAt: now - 1000,
      otpHeldPrefixes: 2,
    });
    assert.deepEqual(view.slowestReceivers, [
      { host: 'slow.example.com', attempts: 3, p95Ms: 1200, lastMs: 900, failed: 2 },
      { host: 'fast.example.com', attempts: 2, p95Ms: 30, lastMs: 20, failed: 1 },
    ]);
    assert.equal(JSON.stringify(view).includes('s3cret'), false, 'no query string, no token');
    assert.equal(JSON.stringify(view).includes('/hook'), false, 'no path');
    assert.deepEqual(view.failingKeys, [
      { keyId: 7, accountId: 70, attempts: 3, failed: 2 },
      { keyId: 8, accountId: 80, attempts: 2, failed: 1 },
    ]);
  });

  it('gives each connection its submit rate between two looks', async () => {
    let clock = now;
    let submits = 100;
    const state = (): ConnectionState[] => [
      { name: 'a', bound: true, inFlight: 2, windowSize: 10, submits, recentErrors: [] },
    ];
    const live = new ProviderLive(
      storeWith([], []),
      async () => state(),
      () => clock,
    );
    assert.equal((await live.carriers())[0]?.submitRate, null, 'no rate at the first look');
    clock += 2000;
    submits += 50;
    const [a] = await live.carriers();
    assert.equal(a?.submitRate, 25);
    assert.equal(a?.inFlight, 2);
  });
});
