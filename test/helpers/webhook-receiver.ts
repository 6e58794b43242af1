/**
 * A real HTTP receiver on 127.0.0.1 with an ephemeral port, recording every request it
 * gets, for tests of webhook sending. `close()` also cuts open and hanging connections.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Remote port: two requests with the same port came over one (kept-alive) connection. */
  remotePort: number;
}

/** Answers one request; called once its body has been read. */
export type ReceiverHandler = (req: ReceivedRequest, res: http.ServerResponse) => void;

export interface Receiver {
  /** Base URL, for example http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export const answer =
  (status: number, headers: Record<string, string> = {}, body = ''): ReceiverHandler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** Listens on `port` when given (a receiver coming back at the same URL), otherwise on a free one. */
export async function startReceiver(handler: ReceiverHandler = answer(200), port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(received);
      handler(received, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
