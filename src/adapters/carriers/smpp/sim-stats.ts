import { createServer } from 'node:http';
import type { Server } from 'node:http';

/** Counters of the SMSC simulator, with per-second rates for its console lines. */
export interface SimCounters {
  binds: number;
  bindsRefused: number;
  /** Sessions bound now, and the most bound at once since start (binds shared by a cluster: at most its maxBinds). */
  boundNow: number;
  peakBound: number;
  /** The most submit_sm received in one second (a sliding window, wherever it falls): the pace of every ESME together. */
  peakSubmitsPerSecond: number;
  submits: number;
  submitsAccepted: number;
  throttled: number;
  /** Most submit_sm on one session awaiting their resp at once: the ESME's window in use. */
  peakUnanswered: number;
  drops: number;
  enquireLinks: number;
  receiptsSent: number;
  receiptResps: number;
  /** deliver_sm_resp with a non-zero status: the receipt is sent again later. */
  receiptRespErrors: number;
  inboundSent: number;
  inboundResps: number;
}

export function emptyCounters(): SimCounters {
  return {
    binds: 0,
    bindsRefused: 0,
    boundNow: 0,
    peakBound: 0,
    peakSubmitsPerSecond: 0,
    submits: 0,
    submitsAccepted: 0,
    throttled: 0,
    peakUnanswered: 0,
    drops: 0,
    enquireLinks: 0,
    receiptsSent: 0,
    receiptResps: 0,
    receiptRespErrors: 0,
    inboundSent: 0,
    inboundResps: 0,
  };
}

/** The most events in one second, over a sliding window of their times. */
export class PeakPerSecond {
  private readonly times: number[] = [];
  private head = 0;
  peak = 0;

  add(now: number): number {
    this.times.push(now);
    while ((this.times[this.head] as number) <= now - 1000) this.head++;
    if (this.head > 4096) {
      this.times.splice(0, this.head);
      this.head = 0;
    }
    this.peak = Math.max(this.peak, this.times.length - this.head);
    return this.peak;
  }
}

/** Prints one line per second in which something happened. */
export class RateTicker {
  private last = emptyCounters();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly counters: SimCounters,
    private readonly print: (line: string) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const c = this.counters;
    const d = (k: keyof SimCounters): number => c[k] - this.last[k];
    if (d('submits') + d('receiptsSent') + d('inboundSent') > 0) {
      this.print(
        `submit/s=${d('submits')} throttled/s=${d('throttled')} receipt/s=${d('receiptsSent')} inbound/s=${d('inboundSent')}` +
          ` | total submits=${c.submits} accepted=${c.submitsAccepted} receipts=${c.receiptsSent} receipt_resps=${c.receiptResps}`,
      );
    }
    this.last = { ...c };
  }
}

/**
 * On 127.0.0.1 only: GET /stats, the counters as JSON; GET /submits?to=NUMBER, the kept
 * submits to that destination (short_message in hex, UDH included), oldest first, each with
 * its order of arrival (`seq`); GET /submits with no `to`, every kept submit.
 */
export async function startStatsServer(
  port: number,
  snapshot: () => object,
  /** null: every kept submit. */
  submitsTo: (destination: string | null) => object[],
): Promise<Server> {
  const server = createServer((req, res) => {
    // A request target that is no URL (`GET http://[`) is refused: thrown here, it would end the simulator.
    const target = req.url ?? '/';
    if (!URL.canParse(target, 'http://127.0.0.1')) return void res.writeHead(400).end();
    const url = new URL(target, 'http://127.0.0.1');
    const answer = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/stats') return answer(snapshot());
    if (req.method === 'GET' && url.pathname === '/submits') return answer(submitsTo(url.searchParams.get('to')));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
