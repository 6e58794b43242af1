/**
 * `haberci iys-sim`: an İYS REST service on 127.0.0.1, in memory, for trying the sync with
 * İYS without İYS. It speaks the shape haberci's client speaks (iys-wire.ts): a token by the
 * OAuth2 password grant; per brand, one consent or a batch added (the newest consent date
 * wins, as on İYS), a consent queried, and the changes made on İYS listed after a cursor.
 * For tests and trials it also answers, under /sim/:
 * - POST /sim/outage `{"ms": N}`: every İYS request answers 503 for N ms (0 ends it);
 * - POST /sim/change `{iysCode, brandCode, recipient, status?, recipientType?, consentDate?}`:
 *   a recipient's own change on İYS (a RET by default, source IYS), listed in the changes;
 * - GET /sim/consents?iysCode=&brandCode=[&recipient=]: what the brand's consents are now;
 * - GET /sim/stats: counters.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { localDateTime } from '../../domain/istanbul-time.js';
import { parseConsentDate } from '../../domain/iys.js';
import { turkishMobile } from '../../domain/recipients.js';
import { fromWire, maxBatch, toWire, tokenPath } from './iys-wire.js';
import type { WireConsent } from './iys-wire.js';

export interface IysSimulatorOptions {
  port: number;
  /** Credentials the token endpoint takes; when absent, any. */
  username?: string | undefined;
  password?: string | undefined;
  /** A token's life. */
  tokenTtlSeconds: number;
  /** Start unavailable for this long (ms). */
  outageMs?: number;
  print?: (line: string) => void;
}

export interface IysSimulatorStats {
  tokens: number;
  tokensRefused: number;
  singleAdds: number;
  batchAdds: number;
  consentsTaken: number;
  consentsRefused: number;
  changesPulled: number;
  unavailable: number;
}

interface Stored extends WireConsent {
  transactionId: string;
  creationDate: string;
}

interface Brand {
  consents: Map<string, Stored>;
  /** Changes made on İYS, in order; a change's id is its position from 1. */
  changes: WireConsent[];
  batches: Map<string, { index: number; status: 'SUCCESS' | 'FAILURE'; error?: { code: string; message: string } }[]>;
}

const bodyLimit = 2 * 1024 * 1024;
const brandRoute = /^\/sps\/([^/]+)\/brands\/([^/]+)\/consents(\/request(?:\/([^/]+))?|\/status|\/changes)?$/;

export class IysSimulator {
  readonly stats: IysSimulatorStats = {
    tokens: 0,
    tokensRefused: 0,
    singleAdds: 0,
    batchAdds: 0,
    consentsTaken: 0,
    consentsRefused: 0,
    changesPulled: 0,
    unavailable: 0,
  };
  private server: Server | null = null;
  private readonly tokens = new Map<string, number>();
  private readonly brands = new Map<string, Brand>();
  private unavailableUntil = 0;
  private nextId = 1;

  constructor(private readonly options: IysSimulatorOptions) {
    if (options.outageMs) this.unavailableUntil = Date.now() + options.outageMs;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      void this.handle(req, res).catch((error: unknown) =>
        send(res, 500, { errors: [{ code: 'SIM', message: error instanceof Error ? error.message : String(error) }] }),
      );
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.options.port, '127.0.0.1', resolve));
    this.options.print?.(`[iys-sim] İYS simulator on http://127.0.0.1:${this.port}`);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Makes every İYS request answer 503 for `ms` (0 ends an outage). */
  outage(ms: number): void {
    this.unavailableUntil = ms > 0 ? Date.now() + ms : 0;
  }

  /** A recipient's own change on İYS, listed in the brand's changes. */
  change(iysCode: string, brandCode: string, consent: WireConsent): string | null {
    const brand = this.brand(iysCode, brandCode);
    const problem = this.take(brand, consent);
    if (problem !== null) return problem;
    const checked = fromWire(consent);
    if (typeof checked !== 'string') brand.changes.push(toWire(checked));
    return null;
  }

  private brand(iysCode: string, brandCode: string): Brand {
    const key = `${iysCode}/${brandCode}`;
    let brand = this.brands.get(key);
    if (!brand) {
      brand = { consents: new Map(), changes: [], batches: new Map() };
      this.brands.set(key, brand);
    }
    return brand;
  }

  /** Records a consent (the newest consent date wins); null, or why it is refused. */
  private take(brand: Brand, item: unknown): string | null {
    const checked = fromWire(item);
    if (typeof checked === 'string') return checked;
    if (checked.consentDate > Date.now() + 60_000) return 'consentDate is in the future';
    const wire = toWire(checked);
    const key = `${wire.recipientType}|${wire.recipient}`;
    const current = brand.consents.get(key);
    if (current && (parseConsentDate(current.consentDate) ?? 0) > checked.consentDate) return null;
    brand.consents.set(key, {
      ...wire,
      transactionId: randomBytes(8).toString('hex'),
      creationDate: localDateTime(Date.now()),
    });
    return null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (url.pathname.startsWith('/sim/')) return this.simRoute(req.method ?? 'GET', url, body, res);
    if (Date.now() < this.unavailableUntil) {
      this.stats.unavailable++;
      return send(res, 503, { errors: [{ code: 'SIM503', message: 'İYS is unavailable (simulated outage)' }] });
    }
    if (body === invalidJson) return send(res, 400, { errors: [{ code: 'H001', message: 'invalid JSON body' }] });
    if (url.pathname === tokenPath && req.method === 'POST') return this.token(body, res);
    const route = brandRoute.exec(url.pathname);
    if (!route) return send(res, 404, { errors: [{ code: 'H404', message: 'no such path' }] });
    if (!this.authorised(req))
      return send(res, 401, { errors: [{ code: 'H401', message: 'invalid or expired token' }] });
    const brand = this.brand(decodeURIComponent(route[1] ?? ''), decodeURIComponent(route[2] ?? ''));
    const tail = route[3];
    const requestId = route[4];
    if (tail === undefined && req.method === 'POST') {
      this.stats.singleAdds++;
      const problem = this.take(brand, body);
      if (problem !== null) {
        this.stats.consentsRefused++;
        return send(res, 400, { errors: [{ code: 'H100', message: problem }] });
      }
      this.stats.consentsTaken++;
      return send(res, 200, { transactionId: randomBytes(8).toString('hex'), creationDate: localDateTime(Date.now()) });
    }
    if (tail === '/request' && requestId === undefined && req.method === 'POST') {
      if (!Array.isArray(body) || body.length === 0 || body.length > maxBatch)
        return send(res, 400, { errors: [{ code: 'H101', message: `a batch is 1 to ${maxBatch} consents` }] });
      this.stats.batchAdds++;
      const id = String(this.nextId++);
      brand.batches.set(
        id,
        body.map((item: unknown, index) => {
          const problem = this.take(brand, item);
          if (problem === null) this.stats.consentsTaken++;
          else this.stats.consentsRefused++;
          return problem === null
            ? { index, status: 'SUCCESS' as const }
            : { index, status: 'FAILURE' as const, error: { code: 'H100', message: problem } };
        }),
      );
      return send(res, 200, { requestId: id });
    }
    if (requestId !== undefined && req.method === 'GET') {
      const subs = brand.batches.get(requestId);
      if (!subs) return send(res, 404, { errors: [{ code: 'H102', message: 'no such request' }] });
      return send(res, 200, { requestId, subRequests: subs });
    }
    if (tail === '/status' && req.method === 'POST') {
      const q = (body ?? {}) as { recipient?: unknown; recipientType?: unknown };
      const found = brand.consents.get(`${String(q.recipientType ?? 'BIREYSEL')}|${String(q.recipient)}`);
      if (!found) return send(res, 404, { errors: [{ code: 'H103', message: 'no consent for this recipient' }] });
      return send(res, 200, found);
    }
    if (tail === '/changes' && req.method === 'GET') {
      const after = Math.max(0, Number(url.searchParams.get('after') ?? '0') || 0);
      const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get('limit') ?? '100') || 100));
      const list = brand.changes.slice(after, after + limit);
      this.stats.changesPulled += list.length;
      return send(res, 200, { after: String(after + list.length), list });
    }
    return send(res, 405, { errors: [{ code: 'H405', message: 'method not allowed' }] });
  }

  private token(body: unknown, res: ServerResponse): void {
    const b = (body ?? {}) as { grant_type?: unknown; username?: unknown; password?: unknown };
    const refused =
      b.grant_type !== 'password' ||
      typeof b.username !== 'string' ||
      typeof b.password !== 'string' ||
      (this.options.username !== undefined && b.username !== this.options.username) ||
      (this.options.password !== undefined && b.password !== this.options.password);
    if (refused) {
      this.stats.tokensRefused++;
      return send(res, 401, { error: 'invalid_grant', error_description: 'bad credentials' });
    }
    this.stats.tokens++;
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, Date.now() + this.options.tokenTtlSeconds * 1000);
    send(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: this.options.tokenTtlSeconds,
      refresh_token: randomBytes(24).toString('base64url'),
    });
  }

  private authorised(req: IncomingMessage): boolean {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const until = m?.[1] === undefined ? undefined : this.tokens.get(m[1]);
    return until !== undefined && until > Date.now();
  }

  private simRoute(method: string, url: URL, body: unknown, res: ServerResponse): void {
    const b = (body ?? {}) as Record<string, unknown>;
    if (url.pathname === '/sim/stats' && method === 'GET') return send(res, 200, this.stats);
    if (url.pathname === '/sim/outage' && method === 'POST') {
      const ms = Number(b.ms);
      if (!Number.isFinite(ms) || ms < 0) return send(res, 400, { error: 'ms must be a number of milliseconds' });
      this.outage(ms);
      return send(res, 200, { unavailable_until: this.unavailableUntil });
    }
    if (url.pathname === '/sim/change' && method === 'POST') {
      const problem = this.change(String(b.iysCode), String(b.brandCode), {
        recipient: String(b.recipient),
        recipientType: typeof b.recipientType === 'string' ? b.recipientType : 'BIREYSEL',
        status: typeof b.status === 'string' ? b.status : 'RET',
        source: typeof b.source === 'string' ? b.source : 'IYS',
        consentDate: typeof b.consentDate === 'string' ? b.consentDate : localDateTime(Date.now()),
        type: 'MESAJ',
      });
      return problem === null ? send(res, 200, { ok: true }) : send(res, 400, { error: problem });
    }
    if (url.pathname === '/sim/consents' && method === 'GET') {
      const brand = this.brand(url.searchParams.get('iysCode') ?? '', url.searchParams.get('brandCode') ?? '');
      const asked = url.searchParams.get('recipient');
      const mobile = asked === null ? null : turkishMobile(asked);
      const recipient = mobile === null ? asked : `+${mobile}`;
      const list = [...brand.consents.values()].filter((c) => recipient === null || c.recipient === recipient);
      return send(res, 200, { list });
    }
    send(res, 404, { error: 'no such path' });
  }
}

const invalidJson = Symbol('invalid JSON');

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > bodyLimit) return invalidJson;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return invalidJson;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
