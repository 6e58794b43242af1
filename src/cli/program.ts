import { Command, CommanderError } from 'commander';
import { ConfigError, envName, loadConfig, optionSpecs } from '../config.js';
import type { OptionName } from '../config.js';
import { adminCommand } from './admin.js';
import { CommandFailed } from './must.js';
import { serve } from './serve.js';
import { smscSimCommand } from './smsc-sim.js';
import { iysSimCommand } from './iys-sim.js';
import { packageVersion } from '../version.js';
import type { CliIo } from './admin-types.js';

/** The real process's streams and environment (bin/haberci). */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** Every command of the tree writes through `io` and throws instead of exiting the process. */
function overrideExits(command: Command, io: CliIo): void {
  command.exitOverride();
  command.configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const sub of command.commands) overrideExits(sub, io);
}

/** The `haberci` command tree, new for each run (commander keeps parsed options on its commands). */
export function buildProgram(io: CliIo): Command {
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
    await serve(loadConfig(flags, io.env));
  });

  program.addCommand(adminCommand(io));
  program.addCommand(smscSimCommand());
  program.addCommand(iysSimCommand());
  overrideExits(program, io);
  return program;
}

/**
 * Runs `haberci <args>` and resolves with its exit code: 0 once the command has done its
 * work (`serve` and the simulators keep running after that), 1 on any failure, which is one
 * line on stderr (commander's own messages are written by commander). The binary exits with
 * this code when it is not 0; tests call it in-process with captured streams.
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const fatal = (message: string): number => {
    io.err(`haberci: ${message}\n`);
    return 1;
  };
  try {
    await buildProgram(io).parseAsync([...args], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    if (error instanceof ConfigError || error instanceof CommandFailed) {
      return fatal(error.message);
    }
    return fatal(error instanceof Error ? (error.message.split('\n')[0] ?? 'failed') : String(error));
  }
}
