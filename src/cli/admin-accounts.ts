import type { Command } from 'commander';
import { parse } from './option-parsers.js';
import { must } from './must.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** `account show|list`: accounts with their balances and their reseller, named. */
export function accountReadCommands(account: Command, leaf: Leaf, run: Run): void {
  leaf(account, 'show', 'show an account with its balances (and its reseller, named)')
    .requiredOption('--id <n>', 'account id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.accountDirectory.show(o.id as number))));
  leaf(account, 'list', 'list accounts in id order, each with its reseller named')
    .option('--parent <n>', "only this reseller's customers", parse.integer(1))
    .option('--after <n>', 'accounts with an id above this one (the next_after of a page)', parse.integer(0))
    .option('--limit <n>', 'accounts per page (default 100)', parse.integer(1, 500))
    .action((o: Options) =>
      run(o, (r) =>
        must(
          r.accountDirectory.list({
            ...(o.parent !== undefined ? { parentId: o.parent as number } : {}),
            ...(o.after !== undefined ? { after: o.after as number } : {}),
            ...(o.limit !== undefined ? { limit: o.limit as number } : {}),
          }),
        ),
      ),
    );
}
