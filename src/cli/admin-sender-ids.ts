import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { senderIdRefusal } from '../domain/sender-title.js';
import { CommandFailed, must } from './must.js';
import { parse } from './option-parsers.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** A title that /sms/send could never send from is refused before the store is opened. */
function senderTitle(raw: string): string {
  const refusal = senderIdRefusal(raw);
  if (refusal !== null) throw new InvalidArgumentError(`${refusal}.`);
  return raw;
}

/** `sender-id add|list|remove`. */
export function senderIdCommands(admin: Command, leaf: Leaf, run: Run): void {
  const senderId = admin.command('sender-id').description('sender IDs');
  leaf(
    senderId,
    'add',
    'add a sender ID to an account (at most 11 characters, Turkish letters counting two: letters, digits, space, . - _ & +)',
  )
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .requiredOption('--title <text>', 'the sender ID', senderTitle)
    .option(
      '--status <status>',
      'approved, pending or rejected',
      parse.oneOf(['approved', 'pending', 'rejected'] as const),
      'approved',
    )
    .action((o: Options) =>
      run(o, (r) => must(r.admin.senderIds.add(o.account as number, o.title as string, o.status as 'approved'))),
    );
  leaf(senderId, 'list', 'an account\u2019s sender IDs, whatever their status, oldest first')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.admin.senderIds.list(o.account as number))));
  leaf(senderId, 'remove', 'remove a sender ID: --id N, or --account N --title TEXT')
    .option('--id <n>', 'sender ID id', parse.integer(1))
    .option('--account <n>', 'account id (with --title)', parse.integer(1))
    .option('--title <text>', 'the sender ID (with --account)', parse.nonEmpty)
    .action((o: Options) => {
      const target = removeTarget(o);
      return run(o, (r) => must(r.admin.senderIds.remove(target)));
    });
  leaf(senderId, 'approve', 'approve a requested sender ID: sends may use it')
    .requiredOption('--id <n>', 'sender ID id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.senderIdReview.approve(o.id as number))));
  leaf(senderId, 'reject', 'reject a requested sender ID, with a reason the customer sees in the panel')
    .requiredOption('--id <n>', 'sender ID id', parse.integer(1))
    .requiredOption('--reason <text>', 'why, shown to the customer', parse.nonEmpty)
    .action((o: Options) => run(o, (r) => must(r.senderIdReview.reject(o.id as number, o.reason as string))));
}

function removeTarget(o: Options): { id: number } | { accountId: number; title: string } {
  const id = o.id as number | undefined;
  const accountId = o.account as number | undefined;
  const title = o.title as string | undefined;
  if (id !== undefined && accountId === undefined && title === undefined) return { id };
  if (id === undefined && accountId !== undefined && title !== undefined) return { accountId, title };
  throw new CommandFailed('name the sender ID with --id N, or with --account N --title TEXT');
}
