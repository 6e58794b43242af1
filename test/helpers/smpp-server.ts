import pino from 'pino';
import type { AppContainer } from '../../src/main.js';
import type { Clock } from '../../src/ports/clock.js';
import { SmppServer } from '../../src/smpp-server/smpp-server.js';
import { SmppService } from '../../src/services/smpp/smpp-service.js';
import type { SmppServerOptions } from '../../src/smpp-server/smpp-server.js';

/** The SMPP server for customers on a test's container and clock, silent, idle after a minute; `options` override. */
export function smppServerOn(
  runtime: AppContainer,
  clock: Clock,
  options: Partial<SmppServerOptions> = {},
): SmppServer {
  return new SmppServer({
    smpp: new SmppService(runtime.store),
    services: runtime.services,
    clock,
    log: pino({ level: 'silent' }),
    idleMs: 60_000,
    ...options,
  });
}
