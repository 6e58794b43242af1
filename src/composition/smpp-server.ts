/**
 * The SMPP server for customers in `serve` (src/smpp-server/), on the HTTP thread's
 * container: its services are the API's, so a submit_sm takes the same path as /sms/send.
 * Opened by runtime/server.ts after the HTTP port, with --smpp-server-port and/or
 * --smpp-server-tls-port; closed before the job threads stop.
 */
import { readFile } from 'node:fs/promises';
import { watchOpenFiles } from './open-files.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { SmppServerMetrics } from '../ports/metrics.js';
import type { SmppSessionState } from '../ports/smpp-binds.js';
import type { AppContainer } from './container.js';

export interface OpenSmppServer {
  /** The ports listened on: plain and TLS (null: not opened). */
  port: number | null;
  tlsPort: number | null;
  /** The sessions bound now (the provider console's SMPP page). */
  sessions(): Promise<SmppSessionState[]>;
  close(): Promise<void>;
}

/** The SMPP connection caps of `serve` (--smpp-server-max-connections, ...-per-address; 0: a twentieth). */
export function smppConnectionCaps(
  config: Pick<Config, 'smppServerMaxConnections' | 'smppServerMaxConnectionsPerAddress'>,
): { maxConnections: number; maxConnectionsPerAddress: number } {
  const maxConnections = config.smppServerMaxConnections;
  const perAddress = config.smppServerMaxConnectionsPerAddress;
  return {
    maxConnections,
    maxConnectionsPerAddress: perAddress > 0 ? perAddress : Math.max(1, Math.floor(maxConnections / 20)),
  };
}

/** Null when neither SMPP port is set. Rejects with a plain reason (a port taken, a TLS file missing). */
export async function openSmppServer(
  container: AppContainer,
  config: Config,
  logger: Logger,
  metrics: SmppServerMetrics,
): Promise<OpenSmppServer | null> {
  if (config.smppServerPort === null && config.smppServerTlsPort === null) return null;
  // Loaded only when asked for: every process and admin command shares the composition root.
  const { SmppServer } = await import('../smpp-server/smpp-server.js');
  const { SmppService } = await import('../services/smpp/smpp-service.js');
  const server = new SmppServer({
    smpp: new SmppService(container.store),
    assemblyTimeoutMs: config.smppServerAssemblyTimeoutMs,
    bindLeaseMs: config.leaseMs,
    services: container.services,
    clock: container.clock,
    log: logger,
    idleMs: config.smppServerIdleMs,
    metrics,
    ...smppConnectionCaps(config),
  });
  const stopWatch = await watchOpenFiles(config, logger);
  const close = async (): Promise<void> => {
    stopWatch();
    await server.close();
  };
  const host = config.host;
  const where = (port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    let port: number | null = null;
    let tlsPort: number | null = null;
    if (config.smppServerPort !== null) {
      port = await server.listen({ port: config.smppServerPort, host });
      logger.info({ port }, `SMPP server on ${where(port)}`);
    }
    if (config.smppServerTlsPort !== null) {
      if (config.smppServerTlsCert === '' || config.smppServerTlsKey === '')
        throw new Error('--smpp-server-tls-port needs --smpp-server-tls-cert and --smpp-server-tls-key');
      const [cert, key] = await Promise.all([readFile(config.smppServerTlsCert), readFile(config.smppServerTlsKey)]);
      tlsPort = await server.listen({ port: config.smppServerTlsPort, host, tls: { cert, key } });
      logger.info({ port: tlsPort }, `SMPP server (TLS) on ${where(tlsPort)}`);
    }
    return { port, tlsPort, sessions: () => server.boundSessions(), close };
  } catch (error) {
    await close();
    const code = (error as { code?: string }).code;
    const why =
      code === 'EADDRINUSE' ? 'the port is already in use' : error instanceof Error ? error.message : String(error);
    throw new Error(`cannot open the SMPP server: ${why}`);
  }
}
