import type { Command } from 'commander';
import { parse } from './option-parsers.js';
import { must } from './must.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** `inbound-route add|remove|list` and `inbound list`. */
export function inboundCommands(admin: Command, leaf: Leaf, run: Run): void {
  const route = admin
    .command('inbound-route')
    .description('numbers and short codes whose incoming messages go to an account');
  leaf(route, 'add', 'give a number or short code to an account (replaces its previous owner)')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .requiredOption('--number <text>', 'the destination number or short code', parse.nonEmpty)
    .action((o: Options) => run(o, (r) => must(r.inboundAdmin.addRoute(o.account as number, o.number as string))));
  leaf(route, 'remove', 'take a number or short code back')
    .requiredOption('--number <text>', 'the destination number or short code', parse.nonEmpty)
    .action((o: Options) => run(o, (r) => must(r.inboundAdmin.removeRoute(o.number as string))));
  leaf(route, 'list', 'list routes')
    .option('--account <n>', 'only this account', parse.integer(1))
    .action((o: Options) => run(o, (r) => r.inboundAdmin.routes((o.account as number | undefined) ?? null)));

  const inbound = admin.command('inbound').description('incoming messages');
  leaf(inbound, 'list', 'an account\u2019s latest incoming messages, newest first')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .option('--limit <n>', 'how many', parse.integer(1, 1000), 20)
    .action((o: Options) => run(o, (r) => r.inboundAdmin.messages(o.account as number, o.limit as number)));
}
