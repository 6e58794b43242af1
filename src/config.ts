/**
 * Every option of the service, once: its flag, its HABERCI_* variable, its default and its
 * check. Nothing else in the code reads process.env. A bad value stops start-up with a
 * message that names the flag and the variable.
 * One file, long because it is the one options table: one entry per option is the point.
 */
import { splitAllowlist, invalidAllowlistEntries } from './domain/ip-allowlist.js';
import { shortLinkPath } from './domain/short-links.js';

type Parser<T> = (raw: string) => T | { error: string };

interface OptionSpec<T> {
  flag: string;
  description: string;
  default: T;
  parse: Parser<T>;
}

const integer =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) return { error: `must be a whole number, got "${raw}"` };
    const n = Number(raw);
    if (n < min || n > max) return { error: `must be between ${min} and ${max}, got ${n}` };
    return n;
  };

const text: Parser<string> = (raw) => raw;

const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return { error: `must be true or false, got "${raw}"` };
};

/** `--short-link-base`: empty (short links off), or an http(s) URL with a path (src/domain/short-links.ts). */
const shortLinkBase: Parser<string> = (raw) => {
  if (raw === '') return raw;
  const checked = shortLinkPath(raw);
  return 'error' in checked ? { error: checked.error } : raw;
};

const databaseUrl: Parser<string> = (raw) => {
  if (raw === '') return raw;
  if (!/^postgres(ql)?:\/\//.test(raw))
    return { error: 'must be a postgres:// URL (leave it unset for the embedded SQLite store)' };
  return raw;
};

const redisUrl: Parser<string> = (raw) => {
  if (raw === '') return raw;
  if (!/^rediss?:\/\//.test(raw))
    return { error: 'must be a redis:// or rediss:// URL (leave it unset to count the per-key rate in each process)' };
  return raw;
};

const addressList: Parser<string[]> = (raw) => {
  const list = splitAllowlist(raw);
  const bad = invalidAllowlistEntries(list);
  return bad.length > 0 ? { error: `not an address or CIDR range: ${bad.join(', ')}` } : list;
};

const share: Parser<number> = (raw) => {
  if (!/^\s*(0|1|0?\.\d+|1\.0*)\s*$/.test(raw)) return { error: `must be a number from 0 to 1, got "${raw}"` };
  return Number(raw);
};

/** A port, or `off` (the listener is not opened). */
const portOrOff: Parser<number | null> = (raw) => {
  if (['off', ''].includes(raw.trim().toLowerCase())) return null;
  return integer(0, 65535)(raw);
};

const logLevel: Parser<string> = (raw) =>
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(raw)
    ? raw
    : { error: `unknown log level "${raw}"` };

export const optionSpecs = {
  port: { flag: 'port', description: 'TCP port to listen on', default: 8080, parse: integer(0, 65535) },
  host: { flag: 'host', description: 'address to listen on', default: '127.0.0.1', parse: text },
  data: { flag: 'data', description: 'folder of the embedded SQLite store', default: './data', parse: text },
  database: {
    flag: 'database',
    description: 'postgres:// URL; unset uses SQLite under --data',
    default: '',
    parse: databaseUrl,
  },
  storeStatementTimeoutMs: {
    flag: 'store-statement-timeout-ms',
    description:
      'PostgreSQL: how long a statement of a request or job may run or wait for an answer before it fails (SRV-ERR); 0 for no bound',
    default: 10_000,
    parse: integer(0, 3_600_000),
  },
  simDelayMs: {
    flag: 'sim-delay-ms',
    description: 'delay of the simulator carrier before a delivery report',
    default: 300,
    parse: integer(0, 3_600_000),
  },
  shortLinkBase: {
    flag: 'short-link-base',
    description:
      'where short links point, an http(s) URL with a path (https://s.example/l): sends with short_links=1 get <base>/<token>, and GET <path>/<token> on this port redirects; empty turns short links off',
    default: '',
    parse: shortLinkBase,
  },
  trustedProxies: {
    flag: 'trusted-proxies',
    description: 'proxies (addresses or CIDR ranges) whose X-Forwarded-For is believed; empty believes none',
    default: [] as string[],
    parse: addressList,
  },
  requestsPerSecond: {
    flag: 'requests-per-second',
    description: 'general request rate per API key (0 turns it off)',
    default: 100,
    parse: integer(0, 1_000_000),
  },
  redis: {
    flag: 'redis',
    description:
      'redis:// URL: the per-key request rate is counted there, for every process of a cluster; unset: in the store on PostgreSQL, in memory on SQLite (docs/operations.md)',
    default: '',
    parse: redisUrl,
  },
  logLevel: { flag: 'log-level', description: 'pino log level', default: 'info', parse: logLevel },
  accessLogSample: {
    flag: 'access-log-sample',
    description:
      'share of API requests given an access line at info (0 to 1): below 1, answers of 500 and over are still always logged; 0 turns the access log off',
    default: 1,
    parse: share,
  },
  opsPort: {
    flag: 'ops-port',
    description:
      'port of the operations listener (GET /metrics for Prometheus, /healthz, /readyz); off: none; 0: a free port the system picks',
    default: null as number | null,
    parse: portOrOff,
  },
  trafficFlushMs: {
    flag: 'traffic-flush-ms',
    description:
      "how often each thread writes its messages' counts per minute for the provider console's Traffic page (one row per thread per minute)",
    default: 60_000,
    parse: integer(100, 3_600_000),
  },
  opsHost: {
    flag: 'ops-host',
    description: 'address of the operations listener: loopback by default, so the metrics are not public',
    default: '127.0.0.1',
    parse: text,
  },
  smppConfig: {
    flag: 'smpp-config',
    description: 'JSON file of SMPP connections (docs/smpp.md); unset sends through the built-in simulator',
    default: '',
    parse: text,
  },
  smppServerPort: {
    flag: 'smpp-server-port',
    description:
      'port of the SMPP 3.4 server for customers (ESMEs) on --host (docs/smpp.md, "Customers over SMPP"); off: none; 0: a free port the system picks',
    default: null as number | null,
    parse: portOrOff,
  },
  smppServerTlsPort: {
    flag: 'smpp-server-tls-port',
    description:
      'port of the SMPP server over TLS on --host, with --smpp-server-tls-cert and --smpp-server-tls-key; off: none',
    default: null as number | null,
    parse: portOrOff,
  },
  smppServerTlsCert: {
    flag: 'smpp-server-tls-cert',
    description: 'PEM file of the SMPP TLS listener\u2019s certificate (chain)',
    default: '',
    parse: text,
  },
  smppServerTlsKey: {
    flag: 'smpp-server-tls-key',
    description: 'PEM file of the SMPP TLS listener\u2019s private key',
    default: '',
    parse: text,
  },
  smppServerIdleMs: {
    flag: 'smpp-server-idle-ms',
    description:
      'an SMPP session that sends nothing (not even enquire_link) for this long is closed; a connection not bound within the smaller of this and 30 s too',
    default: 120_000,
    parse: integer(100, 3_600_000),
  },
  smppServerMaxConnections: {
    flag: 'smpp-server-max-connections',
    description:
      'open SMPP connections at most, both SMPP ports together: at it, a new connection closes the oldest one not bound (in its TLS handshake or waiting to bind), and is refused when all are bound; kept apart from --max-connections, so SMPP cannot take the file descriptors HTTP needs',
    default: 1000,
    parse: integer(1, 1_000_000),
  },
  smppServerMaxConnectionsPerAddress: {
    flag: 'smpp-server-max-connections-per-address',
    description:
      'open SMPP connections from one client address at most; more are closed at once; 0: a twentieth of --smpp-server-max-connections (50 of 1,000)',
    default: 0,
    parse: integer(0, 1_000_000),
  },
  smppServerAssemblyTimeoutMs: {
    flag: 'smpp-server-assembly-timeout-ms',
    description:
      'the parts of a concatenated submit_sm not all received this long after the first are given up (their receipts say REJECTD)',
    default: 60_000,
    parse: integer(100, 3_600_000),
  },
  leaseMs: {
    flag: 'lease-ms',
    description:
      'how long a message held by a worker that stopped answering (killed, frozen, cut off from the store) waits before another worker takes it; live workers extend their leases every third of it',
    default: 15_000,
    parse: integer(1000, 3_600_000),
  },
  deliveryYieldMs: {
    flag: 'delivery-yield-ms',
    description:
      'SQLite: under a burst of requests, how long the job threads let HTTP answers go first for the store before taking their turn (0: they take turns)',
    default: 50,
    parse: integer(0, 1000),
  },
  dispatchPollMs: {
    flag: 'dispatch-poll-ms',
    description:
      'how often an idle dispatcher looks in the store for messages it was not woken for (committed by another process while a wake was lost)',
    default: 200,
    parse: integer(10, 600_000),
  },
  notify: {
    flag: 'notify',
    description:
      'PostgreSQL: a process without job threads wakes the other processes\u2019 dispatchers with NOTIFY when it commits messages, and job threads LISTEN (false: they find the messages at their next poll); the HTTP thread keeps its lookup caches, emptied by LISTEN (false: every lookup is a query)',
    default: true,
    parse: bool,
  },
  worker: {
    flag: 'worker',
    description: 'run the jobs (the dispatcher with the carriers, and the webhook sender) in threads of this process',
    default: true,
    parse: bool,
  },
  webhookAllowPrivate: {
    flag: 'webhook-allow-private',
    description: 'allow webhook URLs on loopback, private and other reserved addresses (on-premise receivers, tests)',
    default: false,
    parse: bool,
  },
  webhookTimeoutMs: {
    flag: 'webhook-timeout-ms',
    description: 'time limit of one webhook attempt, from name lookup to response headers',
    default: 10_000,
    parse: integer(100, 120_000),
  },
  webhookConcurrency: {
    flag: 'webhook-concurrency',
    description: 'webhook attempts in flight at once in this process',
    default: 64,
    parse: integer(1, 4096),
  },
  webhookDestinationConcurrency: {
    flag: 'webhook-destination-concurrency',
    description:
      'webhook attempts in flight at once to one destination (URL origin) in this process; 0: a quarter of --webhook-concurrency',
    default: 0,
    parse: integer(0, 4096),
  },
  webhookRetryBaseMs: {
    flag: 'webhook-retry-base-ms',
    description:
      'first delay of the default webhook retry schedule (1 min, 10 min, 1 h, 6 h); every schedule, keys\u2019 own included, is scaled by the same ratio (small values make retries fast for tests)',
    default: 60_000,
    parse: integer(10, 3_600_000),
  },
  warmUp: {
    flag: 'warm-up',
    description:
      'requests the server sends itself at start-up, against a throwaway store, so V8 compiles the request path before the port opens (0: none)',
    default: 3000,
    parse: integer(0, 1_000_000),
  },
  panel: {
    flag: 'panel',
    description: 'serve the customer panel at /panel/ on the same port',
    default: true,
    parse: bool,
  },
  panelIdleMinutes: {
    flag: 'panel-idle-minutes',
    description: 'a panel session ends after this long without a request',
    default: 120,
    parse: integer(1, 7 * 24 * 60),
  },
  panelSessionHours: {
    flag: 'panel-session-hours',
    description: 'a panel session ends this long after sign-in, however busy',
    default: 12,
    parse: integer(1, 24 * 90),
  },
  demo: {
    flag: 'demo',
    description: 'create a demo account and sandbox key on first start with an empty store',
    default: true,
    parse: bool,
  },
  headersTimeoutMs: {
    flag: 'headers-timeout-ms',
    description: 'time a client has from connecting (or from its last request) to send complete request headers',
    default: 10_000,
    parse: integer(1000, 600_000),
  },
  requestTimeoutMs: {
    flag: 'request-timeout-ms',
    description: 'time a client has to send one whole request, body included',
    default: 120_000,
    parse: integer(1000, 3_600_000),
  },
  idleTimeoutMs: {
    flag: 'idle-timeout-ms',
    description: 'a connection with no byte in or out for this long is closed',
    default: 30_000,
    parse: integer(1000, 3_600_000),
  },
  keepAliveTimeoutMs: {
    flag: 'keep-alive-timeout-ms',
    description: 'an idle keep-alive connection is closed after this long',
    default: 5_000,
    parse: integer(100, 600_000),
  },
  maxConnections: {
    flag: 'max-connections',
    description:
      'open HTTP connections at most: within a tenth of it, each new connection closes the longest-idle one (no request in flight); at it, a new one is refused only when none is idle',
    default: 10_000,
    parse: integer(1, 1_000_000),
  },
  maxConnectionsPerAddress: {
    flag: 'max-connections-per-address',
    description:
      'open HTTP connections from one client address at most; more are closed at once; 0: a twentieth of --max-connections (500 of 10,000), so that no address takes a tenth of the server',
    default: 0,
    parse: integer(0, 1_000_000),
  },
  bodyBytesInFlight: {
    flag: 'body-bytes-in-flight',
    description:
      'bytes of request bodies the process holds at once, for all clients together; a body that does not fit is answered 503 (SRV-ERR, Retry-After) before it is read, and large bodies (over 64 KiB) may fill only three quarters of it, so ordinary requests are still served (docs/operations.md)',
    default: 512 * 1024 * 1024,
    parse: integer(1024 * 1024, 64 * 1024 * 1024 * 1024),
  },
  drainMs: {
    flag: 'drain-ms',
    description:
      'on SIGTERM: how long open connections are given to end by themselves (a last request is answered SRV-ERR with Connection: close; an idle one ends at its keep-alive timeout) before they are closed',
    default: 6_000,
    parse: integer(0, 60_000),
  },
  retentionDays: {
    flag: 'retention-days',
    description:
      'remove finished messages, their parts and receipts, webhook events and their attempts, inbound messages and idempotency keys older than this many days, in small batches (0: keep everything); the panel\u2019s daily counts stay',
    default: 0,
    parse: integer(0, 36_500),
  },
  retentionBatch: {
    flag: 'retention-batch',
    description: 'rows one retention transaction removes at most',
    default: 300,
    parse: integer(1, 100_000),
  },
  retentionPauseMs: {
    flag: 'retention-pause-ms',
    description: 'pause of retention after each batch, so that requests get the store between batches',
    default: 100,
    parse: integer(0, 60_000),
  },
  retentionEveryMs: {
    flag: 'retention-every-ms',
    description: 'time between retention sweeps',
    default: 600_000,
    parse: integer(1000, 86_400_000),
  },
  otpWatchEveryMs: {
    flag: 'otp-watch-every-ms',
    description: 'time between rounds of the OTP conversion watch (held prefixes: suspected SMS pumping)',
    default: 60_000,
    parse: integer(1000, 3_600_000),
  },
  otpWatchGraceMs: {
    flag: 'otp-watch-grace-ms',
    description: 'the OTP conversion watch counts an unverified code only once it is this old',
    default: 120_000,
    parse: integer(0, 3_600_000),
  },
  retentionPartitionIds: {
    flag: 'retention-partition-ids',
    description:
      'PostgreSQL: ids one partition of messages spans (about a day of sends and messages is right); retention makes them ahead and drops old ones whole',
    default: 1_000_000,
    parse: integer(2, 1_000_000_000),
  },
  iysSyncMs: {
    flag: 'iys-sync-ms',
    description:
      'time between rounds of the İYS sync (accounts with an İYS address: consents and RETs pushed, changes made on İYS pulled)',
    default: 5_000,
    parse: integer(100, 3_600_000),
  },
  iysRetryMaxMs: {
    flag: 'iys-retry-max-ms',
    description: 'longest wait before a consent İYS did not take is pushed again (the wait doubles from --iys-sync-ms)',
    default: 300_000,
    parse: integer(100, 86_400_000),
  },
  iysTimeoutMs: {
    flag: 'iys-timeout-ms',
    description: 'time limit of one request to İYS',
    default: 15_000,
    parse: integer(100, 300_000),
  },
  secretKeyFile: {
    flag: 'secret-key-file',
    description:
      'the key that encrypts stored secrets (the İYS password of `admin iys configure`); empty: secret.key in --data',
    default: '',
    parse: text,
  },
} satisfies Record<string, OptionSpec<unknown>>;

type Specs = typeof optionSpecs;
export type Config = { [K in keyof Specs]: Specs[K]['default'] };
export type OptionName = keyof Specs;

export function envName(spec: { flag: string }): string {
  return `HABERCI_${spec.flag.toUpperCase().replace(/-/g, '_')}`;
}

export class ConfigError extends Error {}

/**
 * Builds the config from flag values (as given on the command line, strings) and the
 * environment. Flags win over variables, variables over defaults.
 */
export function loadConfig(
  flags: Partial<Record<OptionName, string>>,
  env: Record<string, string | undefined>,
): Config {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(optionSpecs) as [OptionName, OptionSpec<unknown>][]) {
    const fromFlag = flags[name];
    const fromEnv = env[envName(spec)];
    const raw = fromFlag ?? fromEnv;
    if (raw === undefined) {
      out[name] = spec.default;
      continue;
    }
    const parsed = spec.parse(raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'error' in parsed) {
      const source = fromFlag !== undefined ? `--${spec.flag}` : envName(spec);
      throw new ConfigError(`invalid ${source}: ${(parsed as { error: string }).error}`);
    }
    out[name] = parsed;
  }
  return out as Config;
}

/** The process environment, read here and nowhere else. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}

type ConnectionLimitOptions = Pick<
  Config,
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'idleTimeoutMs'
  | 'keepAliveTimeoutMs'
  | 'maxConnections'
  | 'maxConnectionsPerAddress'
>;

/** `serve`'s HTTP time limits and connection caps, as the HTTP server takes them (src/http/connection-limits.ts). */
export function connectionLimits(config: ConnectionLimitOptions): ConnectionLimitOptions {
  return {
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    idleTimeoutMs: config.idleTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    maxConnections: config.maxConnections,
    maxConnectionsPerAddress:
      config.maxConnectionsPerAddress > 0
        ? config.maxConnectionsPerAddress
        : Math.max(1, Math.floor(config.maxConnections / 20)),
  };
}

/** The same from the options' defaults, for apps built without a configuration (tests, benches). */
export const defaultConnectionLimits = connectionLimits(loadConfig({}, {}));
