import { Command } from 'commander';

/** A simulator as its command runs it: started, stopped, and its counters. */
interface Simulator {
  start(): Promise<unknown>;
  stop(): Promise<void>;
  readonly stats: object;
}

/**
 * The command of a local simulator: `start` makes it from the parsed options; it runs until
 * SIGINT or SIGTERM, then stops and prints its totals.
 */
export function simulatorCommand<Raw>(
  name: string,
  description: string,
  start: (raw: Raw) => Promise<Simulator>,
): Command {
  return new Command(name).description(description).action(async (raw: Raw) => {
    const simulator = await start(raw);
    await simulator.start();
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await simulator.stop();
    process.stdout.write(`[${name}] totals ${JSON.stringify(simulator.stats)}\n`);
  });
}
