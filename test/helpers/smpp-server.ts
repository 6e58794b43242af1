import pino from 'pino';
import type { AppContainer } from '../../src/main.js';
import type { Clock } from '../../src/ports/clock.js';
import { SmppServer } from '../../src/smpp-server/smpp-server.js';
import type { SmppServerOptions } from '../../src/smpp-server/smpp-server.js';

/** The SMPP server for customers on a test's container and clock, silent, idle after a minute; `options` override. */
export function smppServerOn(
  runtime: AppContainer,
  clock: Clock,
  options: Partial<SmppServerOptions> = {},
): SmppServer {
  return new SmppServer({
    store: runtime.store.smpp,
    outbox: runtime.store.outbox,
    reports: runtime.store.reports,
    services: runtime.services,
    bindAttempts: runtime.store.users,
    clock,
    log: pino({ level: 'silent' }),
    idleMs: 60_000,
    ...options,
  });
}
