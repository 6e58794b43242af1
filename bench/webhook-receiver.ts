/**
 * A webhook receiver in a process of its own (as Kannel's dlr-url receiver is), for the
 * end-to-end benches: answers every POST 200 at once, counts events by type and distinct
 * event_id, and keeps the time of the first and last `sms.delivered`. `GET /stats` returns
 * the counters as JSON. Run: `node dist/bench/webhook-receiver.js PORT`.
 */
import http from 'node:http';

const port = Number(process.argv[2] ?? '0');
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write('usage: webhook-receiver.js PORT\n');
  process.exit(1);
}

const seen = new Set<string>();
const byType: Record<string, number> = {};
let requests = 0;
let duplicates = 0;
let firstDeliveredMs = 0;
let lastDeliveredMs = 0;
let lastMs = 0;

type Received = { event_id?: unknown; event_type?: unknown };

/** A request's events: a bucket's (`{"events": [...]}`, a key with --webhook-batch above 1), or the one event. */
function record(body: string): void {
  const parsed = JSON.parse(body) as Received & { events?: Received[] };
  for (const event of Array.isArray(parsed.events) ? parsed.events : [parsed]) recordEvent(event);
}

function recordEvent(event: Received): void {
  const id = String(event.event_id);
  const type = String(event.event_type);
  if (seen.has(id)) {
    duplicates++;
    return;
  }
  seen.add(id);
  byType[type] = (byType[type] ?? 0) + 1;
  const now = Date.now();
  lastMs = now;
  if (type === 'sms.delivered') {
    if (firstDeliveredMs === 0) firstDeliveredMs = now;
    lastDeliveredMs = now;
  }
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ requests, distinct: seen.size, duplicates, byType, firstDeliveredMs, lastDeliveredMs, lastMs }),
    );
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    requests++;
    try {
      record(Buffer.concat(chunks).toString('utf8'));
    } catch {
      byType.unparsable = (byType.unparsable ?? 0) + 1;
    }
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
