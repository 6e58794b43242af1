import type { Command } from 'commander';
import { parse } from './option-parsers.js';
import { must } from './must.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** `smpp-user create|list|disable`: customers who bind over SMPP (docs/smpp.md, "Customers over SMPP"). */
export function smppUserCommands(admin: Command, leaf: Leaf, run: Run): void {
  const user = admin.command('smpp-user').description('SMPP users: a system_id and password that bind as one API key');
  leaf(user, 'create', 'create an SMPP user for a key; prints it (never the password)')
    .requiredOption('--key <n>', 'the API key the binds act as', parse.integer(1))
    .requiredOption('--system-id <text>', 'the system_id a client binds with (at most 15 characters)', parse.nonEmpty)
    .requiredOption('--password <text>', 'the password (at most 8 characters, stored hashed)', parse.nonEmpty)
    .option('--max-binds <n>', 'sessions bound at once (default 4)', parse.integer(1, 1000))
    .option('--window <n>', 'unanswered deliver_sm per session (default 10)', parse.integer(1, 1000))
    .option('--max-submits-per-second <n>', 'submit_sm a second per bind, 0 = no limit (default 100)', parse.integer(0))
    .action((o: Options) =>
      run(o, (r) =>
        must(
          r.smppUsers.create({
            keyId: o.key as number,
            systemId: o.systemId as string,
            password: o.password as string,
            ...(o.maxBinds !== undefined ? { maxBinds: o.maxBinds as number } : {}),
            ...(o.window !== undefined ? { windowSize: o.window as number } : {}),
            ...(o.maxSubmitsPerSecond !== undefined ? { maxSubmitsPerSecond: o.maxSubmitsPerSecond as number } : {}),
          }),
        ),
      ),
    );
  leaf(user, 'list', 'an account\u2019s SMPP users')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .action((o: Options) => run(o, (r) => r.smppUsers.list(o.account as number)));
  leaf(user, 'disable', 'refuse the user\u2019s binds from now on and close its sessions at their next submit')
    .requiredOption('--id <n>', 'SMPP user id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.smppUsers.disable(o.id as number))));
}
