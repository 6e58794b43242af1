import type { Config } from '../config.js';
import { createDemoAccount, createLogger } from '../main.js';
import { startServer, stopOnSignals } from '../runtime/server.js';
import { showDemo } from './demo-account.js';

/** `haberci serve`: starts the service (runtime/server.ts), shows the demo key on first start, and says when it is ready. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  if (config.demo) {
    const demo = await createDemoAccount(server.container);
    if (demo !== null) showDemo(demo, server.address, config.panel);
  }
  // The ready line is written whatever the log level: scripts wait for it.
  logger.child({}, { level: 'info' }).info({ address: server.address }, `haberci ready on ${server.address}`);
  stopOnSignals(server);
}
