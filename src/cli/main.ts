import { Command, CommanderError } from 'commander';
import { ConfigError, envName, loadConfig, optionSpecs, processEnv } from '../config.js';
import type { OptionName } from '../config.js';
import { adminCommand } from './admin.js';
import { AdminError } from '../main.js';
import { serve } from './serve.js';
import { smscSimCommand } from './smsc-sim.js';
import { iysSimCommand } from './iys-sim.js';
import { packageVersion } from '../version.js';

const program = new Command('haberci')
  .description('haberci: an SMS messaging service (Messaging Service API v4)')
  .version(packageVersion(), '-V, --version', 'print the version of haberci')
  .showHelpAfterError(false);

const serveCommand = program
  .command('serve')
  .description('start the HTTP API with the dispatcher and the built-in operator simulator');
for (const spec of Object.values(optionSpecs)) {
  // A null default is a listener or feature that is off until given a value (--ops-port).
  const shown = spec.default === null ? 'off' : JSON.stringify(spec.default);
  serveCommand.option(`--${spec.flag} <value>`, `${spec.description} (${envName(spec)}; default ${shown})`);
}
serveCommand.action(async (raw: Record<string, string>) => {
  const flags: Partial<Record<OptionName, string>> = {};
  for (const name of Object.keys(optionSpecs) as OptionName[]) {
    const value = raw[name];
    if (value !== undefined) flags[name] = value;
  }
  await serve(loadConfig(flags, processEnv()));
});

program.addCommand(adminCommand());
program.addCommand(smscSimCommand());
program.addCommand(iysSimCommand());

function fatal(message: string): never {
  process.stderr.write(`haberci: ${message}\n`);
  process.exit(1);
}

program.exitOverride();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 1);
  if (error instanceof ConfigError || error instanceof AdminError) fatal(error.message);
  fatal(error instanceof Error ? (error.message.split('\n')[0] ?? 'failed') : String(error));
}
