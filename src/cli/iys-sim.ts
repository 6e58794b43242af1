import type { Command } from 'commander';
import { iysSimulator } from '../main.js';
import { parse } from './option-parsers.js';
import { simulatorCommand } from './simulator-command.js';

/** `haberci iys-sim`: an İYS REST service on 127.0.0.1 for trying the sync with İYS locally. */

interface Raw {
  port: number;
  username?: string;
  password?: string;
  tokenTtlSeconds: number;
  outageMs: number;
}

export function iysSimCommand(): Command {
  return simulatorCommand(
    'iys-sim',
    'run an İYS REST simulator on 127.0.0.1: OAuth2 token, consents added (single, batch) and queried, changes made on İYS; /sim/outage, /sim/change, /sim/consents, /sim/stats for tests',
    (raw: Raw) =>
      iysSimulator({
        port: raw.port,
        username: raw.username,
        password: raw.password,
        tokenTtlSeconds: raw.tokenTtlSeconds,
        outageMs: raw.outageMs,
        print: (line) => process.stdout.write(`${line}\n`),
      }),
  )
    .option('--port <n>', 'HTTP port', parse.integer(0, 65535), 8090)
    .option('--username <text>', 'require this API user for a token (default: none required)')
    .option('--password <text>', 'require this API password for a token (default: none required)')
    .option('--token-ttl-seconds <n>', 'life of a token', parse.integer(1, 86_400), 7200)
    .option('--outage-ms <ms>', 'answer 503 to every İYS request for this long after start', parse.integer(0), 0);
}
