/**
 * The composition root: the only place that picks adapters (store dialect, clock, carrier,
 * webhook sender, metrics, the rate's counter) and builds services, jobs and surfaces on
 * them. Its parts live in src/composition/, one file per thing built; this file is their one
 * door. runtime/ (threads, start and stop) and cli/ (commands) take from here whatever they
 * use beyond ports, the domain, util and config.ts, and build nothing themselves; the walls
 * (`npm run walls`) hold them to it.
 */
import type { SmscSimulator, SmscSimulatorOptions } from './adapters/carriers/smpp/smsc-simulator.js';
import type { IysSimulator, IysSimulatorOptions } from './adapters/iys/iys-simulator.js';

// Every thread and command: its container on a store.
export { openAppContainer, createLogger } from './composition/container.js';
export type { AppContainer } from './composition/container.js';
export { statementsCsv } from './services/account-statements.js';
export type { Statement, ResellerStatement } from './services/account-statements.js';
export { serveLocation, existingStoreLocation, initStore } from './composition/store-locations.js';
export type { StoreLocation } from './adapters/store/index.js';

// `serve`: the HTTP thread, its hand-off to the dispatch thread, the warm-up's second app.
export { openHttpThread } from './composition/serve.js';
export type { HttpThread, JobThreadsView, ServeHttp } from './composition/serve.js';
export { createHttp, stopHttp } from './composition/http.js';
export { dispatchWindow, handOffSends } from './composition/dispatch.js';
export type { DispatchWindow } from './jobs/dispatch-window.js';
export { warmUpLocation } from './composition/store-locations.js';
export { createDemoAccount } from './composition/demo.js';
export { openSmppServer } from './composition/smpp-server.js';
export type { OpenSmppServer } from './composition/smpp-server.js';
export type { DemoAccount } from './composition/demo.js';

// The job threads of `serve` (startJob; tests start a dispatcher or a courier alone), and
// where the runtime relays each wake channel (the job table's rows it wakes).
export { jobMetrics, startJob } from './composition/job.js';
export type { JobConfig, RunningJob } from './composition/job.js';
export { relayContainerWakes, threadsWokenBy } from './composition/jobs.js';
export type { MetricsJson, ThreadMetrics } from './adapters/metrics/thread-metrics.js';
export { startDispatcher } from './composition/dispatch.js';
export { startWebhooks } from './composition/webhooks.js';

// The admin commands: the provider's webhook commands, and what they print and refuse
// with, in the services' own terms.
export { webhookAdmin } from './composition/webhooks.js';
export { accountView, defaultKeySettings, keyView } from './services/admin.js';
export type { AdminResult } from './services/admin-result.js';
export { eventRef } from './services/webhook-admin.js';
export { maxOtpMaxTries, maxOtpValiditySeconds, minOtpValiditySeconds } from './domain/otp-check.js';
export { parseCountries } from './domain/otp-guard.js';
export type { OtpSettings } from './domain/otp-guard.js';
export type { WebhookAdmin } from './services/webhook-admin.js';
export type { AuditFact, DetailValue } from './services/audit-log.js';

/** `haberci smsc-sim`: the SMPP SMSC simulator (loaded for that command only). */
export async function smscSimulator(options: SmscSimulatorOptions): Promise<SmscSimulator> {
  const { SmscSimulator } = await import('./adapters/carriers/smpp/smsc-simulator.js');
  return new SmscSimulator(options);
}
export type { SmscSimulatorOptions };

/** `haberci iys-sim`: the İYS REST simulator (loaded for that command only). */
export async function iysSimulator(options: IysSimulatorOptions): Promise<IysSimulator> {
  const { IysSimulator } = await import('./adapters/iys/iys-simulator.js');
  return new IysSimulator(options);
}
export type { IysSimulatorOptions };
