import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { settle } from './machine.js';
import { runCommand } from './processes.js';
import { repoRoot } from './server-process.js';
import { kannelAnchorDir } from './settings.js';

/**
 * Kannel 1.4.5 (bearerbox + smsbox) in front of the Node SMSC simulator, driven by the
 * anchor's own `run.sh` (hey, N requests over C keep-alive connections after a 500-request
 * warm-up), so its figures are taken exactly as the anchor's README describes. The anchor
 * may sit on a read-only folder: it is copied with its simulator to `.tmp/kannel-anchor/`,
 * and the absolute log and store paths of its kannel.conf are pointed at the copy.
 */
export interface KannelRun {
  profile: string;
  dlr: string;
  dlrDelayMs: string;
  requests: number;
  connections: number;
  httpRequestsPerSecond: number;
  httpP50Ms: number;
  httpP99Ms: number;
  non2xx: number;
  submits: number;
  /** Messages / s from the start of the load to the last submit_sm at the simulator. */
  submitPerSecond: number | null;
  dlrResps: number;
  dlrPerSecond: number | null;
  callbacks: number;
  /** Messages / s from the start of the load to the last dlr-url callback. */
  callbackPerSecond: number | null;
  cpuSeconds: { bearerbox: number; smsbox: number; simulatorAndReceiver: number; hey: number };
  notes: string;
}

export interface KannelSettings {
  profile: string;
  requests: number;
  connections: number;
  /** url (callback per message), internal or none. */
  dlr?: 'url' | 'internal' | 'none';
  dlrMinMs?: number;
  dlrMaxMs?: number;
  /** Requests sent (and drained) before the measured run; the anchor's default is 500. */
  warmup?: number;
}

const scratch = join(repoRoot, '.tmp', 'kannel-anchor');
const runDir = join(scratch, 'run');

/** Why Kannel cannot run here, or null when it can. */
export function kannelMissing(): string | null {
  for (const file of [
    '/usr/sbin/bearerbox',
    '/usr/sbin/smsbox',
    '/usr/bin/hey',
    join(kannelAnchorDir(), 'run.sh'),
    join(dirname(kannelAnchorDir()), 'smsc-sim', 'smsc-sim.js'),
  ]) {
    if (!existsSync(file)) return `${file} is missing`;
  }
  return null;
}

let prepared: Promise<void> | null = null;

async function prepare(): Promise<void> {
  const anchor = kannelAnchorDir();
  await rm(scratch, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  await cp(anchor, join(scratch, 'kannel'), { recursive: true });
  await cp(join(dirname(anchor), 'smsc-sim'), join(scratch, 'smsc-sim'), {
    recursive: true,
    filter: (source) => !source.endsWith('node_modules'),
  });
  const conf = join(scratch, 'kannel', 'kannel.conf');
  const text = await readFile(conf, 'utf8');
  // log-file and store-location name an absolute folder of the machine the anchor was made on.
  await writeFile(
    conf,
    text.replace(
      /^(#?(?:log-file|store-location) = ")[^"]*\/([^/"]+)"$/gm,
      (_m, head: string, file: string) => `${head}${runDir}/${file}"`,
    ),
  );
  // The simulator's only dependency is node-smpp 0.5.1, which haberci itself uses: the same
  // package, linked rather than fetched.
  await symlink(join(repoRoot, 'node_modules'), join(scratch, 'smsc-sim', 'node_modules'));
}

/** The anchor's simulator script (prepared copy), for benches that point haberci at the same SMSC. */
export async function sharedSimulatorScript(): Promise<string> {
  prepared ??= prepare();
  await prepared;
  return join(scratch, 'smsc-sim', 'smsc-sim.js');
}

function parseRow(header: string[], row: string[]): KannelRun {
  const field = (name: string): string => row[header.indexOf(name)] ?? '';
  const num = (name: string): number => Number(field(name));
  const rate = (name: string): number | null =>
    field(name) === '-' || field(name) === '' ? null : Number(field(name));
  const notes = field('notes');
  return {
    profile: field('profile'),
    dlr: field('dlr'),
    dlrDelayMs: /dlr-delay=(\S+)/.exec(notes)?.[1] ?? '',
    requests: num('N'),
    connections: num('C'),
    httpRequestsPerSecond: num('http_rps'),
    httpP50Ms: num('p50_ms'),
    httpP99Ms: num('p99_ms'),
    non2xx: num('non2xx'),
    submits: num('submits'),
    submitPerSecond: rate('submit_e2e_per_s'),
    dlrResps: num('dlr_resps'),
    dlrPerSecond: rate('dlr_e2e_per_s'),
    callbacks: num('callbacks'),
    callbackPerSecond: rate('callback_e2e_per_s'),
    cpuSeconds: {
      bearerbox: num('cpu_bb_s'),
      smsbox: num('cpu_sb_s'),
      simulatorAndReceiver: num('cpu_sim_s'),
      hey: num('cpu_hey_s'),
    },
    notes,
  };
}

const runs = new Map<string, Promise<KannelRun>>();

async function runOnce(settings: KannelSettings, quietWaitSeconds: number): Promise<KannelRun> {
  prepared ??= prepare();
  await prepared;
  const csv = join(runDir, `results-${Date.now()}.tsv`);
  const env: Record<string, string> = {
    RUN_DIR: runDir,
    CSV: csv,
    N: String(settings.requests),
    C: String(settings.connections),
    DLR: settings.dlr ?? 'url',
    SIM_DLR_MIN_MS: String(settings.dlrMinMs ?? 0),
    SIM_DLR_MAX_MS: String(settings.dlrMaxMs ?? 50),
    ...(settings.warmup === undefined ? {} : { WARMUP: String(settings.warmup) }),
  };
  await settle(quietWaitSeconds);
  process.stderr.write(
    `  kannel ${settings.profile} (DLR ${env.DLR}, delay ${env.SIM_DLR_MIN_MS}-${env.SIM_DLR_MAX_MS} ms, N=${env.N}, C=${env.C})\n`,
  );
  const { code, stdout, stderr } = await runCommand(join(scratch, 'kannel', 'run.sh'), [settings.profile], {
    cwd: join(scratch, 'kannel'),
    env,
    timeoutMs: 900_000,
  });
  const lines = existsSync(csv) ? (await readFile(csv, 'utf8')).trim().split('\n') : [];
  const [head, ...rows] = lines.map((l) => l.split('\t'));
  const last = rows[rows.length - 1];
  if (code !== 0 || head === undefined || last === undefined)
    throw new Error(
      `kannel run.sh ${settings.profile} failed (${code}):\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`,
    );
  process.stderr.write(
    stdout
      .split('\n')
      .filter((l) => l.startsWith('   '))
      .join('\n') + '\n',
  );
  return parseRow(head, last);
}

/**
 * One run of the anchor with these settings, at most once per bench process: benches that
 * compare with the same Kannel profile share its run.
 */
export function runKannel(settings: KannelSettings, quietWaitSeconds: number): Promise<KannelRun> {
  const key = JSON.stringify(settings);
  let run = runs.get(key);
  if (run === undefined) {
    run = runOnce(settings, quietWaitSeconds);
    runs.set(key, run);
  }
  return run;
}
