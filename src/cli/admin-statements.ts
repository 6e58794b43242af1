/**
 * `account statement`: an account's monthly statement from the ledger (docs/resellers.md,
 * "Statements"); with `--customers` a reseller's, each of its customers' with it; with
 * `--csv FILE` the same as CSV in FILE too (the answer on stdout stays one JSON object).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { statementsCsv } from '../main.js';
import type { ResellerStatement, Statement } from '../main.js';
import { must } from './must.js';
import { parse } from './option-parsers.js';
import type { Leaf, Options, Run } from './admin-types.js';

export function statementCommands(account: Command, leaf: Leaf, run: Run): void {
  leaf(account, 'statement', 'a month of an account: messages by state and credit from the ledger, to the unit')
    .requiredOption('--id <n>', 'account id', parse.integer(1))
    .requiredOption('--month <YYYY-MM>', 'the Istanbul month', parse.nonEmpty)
    .option('--customers', "a reseller's statement with each of its customers'")
    .option('--csv <file>', 'also write the statement as CSV to this file (one row per account and balance)')
    .action((o: Options) =>
      run(o, async (r) => {
        const statement = await must(r.statements.statement(o.id as number, o.month as string, o.customers === true));
        if (typeof o.csv === 'string') {
          const all: Statement[] = [
            statement,
            ...('customers' in statement ? (statement as ResellerStatement).customers : []),
          ];
          writeFileSync(o.csv, statementsCsv(all));
        }
        return statement;
      }),
    );
}
