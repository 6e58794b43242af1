import { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { Config, OptionName } from '../config.js';
import { defaultKeySettings, existingStoreLocation, initStore, keyView, openAppContainer } from '../main.js';
import type { AppContainer } from '../main.js';
import { parse } from './option-parsers.js';
import { accountReadCommands } from './admin-accounts.js';
import { webhookCommands } from './admin-webhooks.js';
import { accountOtpCommands, otpCommands, otpHoldCommands } from './admin-otp.js';
import { inboundCommands } from './admin-inbound.js';
import { iysCommands } from './admin-iys.js';
import { senderIdCommands } from './admin-sender-ids.js';
import { userCommands } from './admin-users.js';
import { smppUserCommands } from './admin-smpp.js';
import { sendDefaultOptions, sendDefaultsChange } from './admin-send-defaults.js';
import type { CliIo, Options } from './admin-types.js';
import { recordCliAudit } from './admin-audit.js';
import { statementCommands } from './admin-statements.js';
import { resellerCommands } from './admin-resellers.js';
import { must } from './must.js';
import { keyOptions, keyPatch } from './admin-key-options.js';

/** Service options a command may take besides the store (its leaf declares them). */
const configFlags = [
  'data',
  'database',
  'webhookAllowPrivate',
  'webhookTimeoutMs',
  'webhookRetryBaseMs',
  'host',
  'port',
] as const;

function adminConfig(options: Options, env: CliIo['env']): Config {
  const flags: Partial<Record<OptionName, string>> = {};
  for (const name of configFlags) if (typeof options[name] === 'string') flags[name] = options[name];
  return loadConfig(flags, env);
}

function leaf(parent: Command, name: string, description: string): Command {
  return parent
    .command(name)
    .description(description)
    .option('--data <dir>', 'folder of the embedded SQLite store (HABERCI_DATA)')
    .option('--database <url>', 'postgres:// URL (HABERCI_DATABASE)');
}

function accountOptions(cmd: Command): Command {
  return cmd
    .option('--balance <n>', 'SMS credit', parse.integer(0))
    .option('--international-balance <n>', 'international SMS credit', parse.integer(0))
    .option('--per-minute-limit <n>', 'recipients per minute, 0 = none', parse.integer(0))
    .option('--otp-brand <text>', 'brand name in OTP templates')
    .option('--ip-allow <cidrs>', 'account IP allowlist, comma-separated', parse.allowlist)
    .option('--global-sending <bool>', 'true or false', parse.bool)
    .option(
      '--send-weight <n>',
      "weight in the account's share of the carrier (default 1: equal)",
      parse.integer(1, 1000),
    );
}

export function adminCommand(io: CliIo): Command {
  /** The command being run, as `noun.verb` (for its audit row). */
  let running: string | null = null;
  const print = (result: unknown): void => io.out(`${JSON.stringify(result)}\n`);

  /**
   * Runs one admin action against the store and prints its JSON; failures are one line on
   * stderr. The store must exist: a command pointed at the wrong folder or database says so
   * instead of creating an empty store there.
   */
  const run = async (
    options: Options,
    action: (container: AppContainer, o: Options, config: Config) => Promise<unknown>,
  ): Promise<void> => {
    const config = adminConfig(options, io.env);
    const container = await openAppContainer(await existingStoreLocation(config));
    try {
      const result = await action(container, options, config);
      try {
        await recordCliAudit(container, running, options, result);
      } catch (error) {
        // The change is made: failing now would invite a retry (a second top-up). Say so instead.
        io.err(
          `warning: the audit row of this command was not written: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
      print(result);
    } finally {
      await container.close();
    }
  };

  const admin = new Command('admin').description(
    'provider administration against the store (works while the server runs)',
  );
  admin.hook('preAction', (_admin, command) => {
    running = command.parent !== null && command.parent !== admin ? `${command.parent.name()}.${command.name()}` : null;
  });

  const store = admin.command('store').description('the store itself');
  leaf(store, 'init', 'create the store if there is none (as serve does), or bring its schema up to date').action(
    async (o: Options) => print(await initStore(adminConfig(o, io.env))),
  );

  const account = admin.command('account').description('customer accounts');
  accountOptions(leaf(account, 'create', 'create an account'))
    .requiredOption('--name <text>', 'account name', parse.nonEmpty)
    .option('--parent <n>', "a reseller's id: the new account is that reseller's customer", parse.integer(1))
    .action((o: Options) =>
      run(o, (r) =>
        must(
          r.admin.createAccount({
            name: o.name as string,
            balanceMain: (o.balance as number | undefined) ?? 0,
            balanceInternational: (o.internationalBalance as number | undefined) ?? 0,
            perMinuteLimit: (o.perMinuteLimit as number | undefined) ?? 0,
            otpBrand: (o.otpBrand as string | undefined) ?? '',
            ipAllow: (o.ipAllow as string[] | undefined) ?? [],
            globalSending: (o.globalSending as boolean | undefined) ?? false,
            ...(o.sendWeight !== undefined ? { sendWeight: o.sendWeight as number } : {}),
            ...(o.parent !== undefined ? { parentId: o.parent as number } : {}),
          }),
        ),
      ),
    );
  sendDefaultOptions(accountOptions(leaf(account, 'update', 'change an account')))
    .requiredOption('--id <n>', 'account id', parse.integer(1))
    .option('--name <text>', 'account name', parse.nonEmpty)
    .option('--status <status>', 'Active or Suspended', parse.oneOf(['Active', 'Suspended'] as const))
    .option('--reseller <bool>', 'true: the account may own customer accounts (one level)', parse.bool)
    .option(
      '--refund-undelivered <bool>',
      "true: credit of a message that ends failed or expired is given back (on a reseller's customer: passed on)",
      parse.bool,
    )
    .action((o: Options) =>
      run(o, (r) =>
        must(
          r.admin.updateAccount(
            o.id as number,
            {
              ...(o.name !== undefined ? { name: o.name as string } : {}),
              ...(o.status !== undefined ? { status: o.status as 'Active' | 'Suspended' } : {}),
              ...(o.perMinuteLimit !== undefined ? { perMinuteLimit: o.perMinuteLimit as number } : {}),
              ...(o.otpBrand !== undefined ? { otpBrand: o.otpBrand as string } : {}),
              ...(o.ipAllow !== undefined ? { ipAllow: o.ipAllow as string[] } : {}),
              ...(o.globalSending !== undefined ? { globalSending: o.globalSending as boolean } : {}),
              ...(o.sendWeight !== undefined ? { sendWeight: o.sendWeight as number } : {}),
              ...(o.reseller !== undefined ? { reseller: o.reseller as boolean } : {}),
              ...sendDefaultsChange(o),
              ...(o.refundUndelivered !== undefined ? { refundUndelivered: o.refundUndelivered as boolean } : {}),
            },
            { main: o.balance as number | undefined, international: o.internationalBalance as number | undefined },
          ),
        ),
      ),
    );
  leaf(account, 'topup', 'add SMS credit through the ledger')
    .requiredOption('--id <n>', 'account id', parse.integer(1))
    .requiredOption(
      '--amount <n>',
      'credit to add, a whole number above zero (account debit takes credit back)',
      parse.integer(1, 1e12),
    )
    .option('--international', 'add to the international balance')
    .action((o: Options) =>
      run(o, (r) => must(r.admin.topup(o.id as number, o.amount as number, o.international === true))),
    );
  leaf(account, 'debit', 'take SMS credit back through the ledger, with a reason; never below zero')
    .requiredOption('--id <n>', 'account id', parse.integer(1))
    .requiredOption('--amount <n>', 'credit to take, a whole number above zero', parse.integer(1, 1e12))
    .requiredOption('--reason <text>', 'why, recorded in the ledger', parse.nonEmpty)
    .option('--international', 'take from the international balance')
    .action((o: Options) =>
      run(o, (r) =>
        must(r.admin.debit(o.id as number, o.amount as number, o.international === true, o.reason as string)),
      ),
    );
  accountReadCommands(account, leaf, run);
  accountOtpCommands(account, leaf, run);
  statementCommands(account, leaf, run);

  senderIdCommands(admin, leaf, run);
  userCommands(admin, leaf, run);
  resellerCommands(admin, leaf, run);

  const key = admin.command('key').description('API keys');
  keyOptions(leaf(key, 'create', 'create a key; prints it once'))
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .action((o: Options) =>
      run(o, (r) => must(r.admin.createKey(o.account as number, { ...defaultKeySettings, ...keyPatch(o) }))),
    );
  keyOptions(leaf(key, 'update', 'change a key\u2019s settings'))
    .requiredOption('--id <n>', 'key id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.admin.updateKey(o.id as number, keyPatch(o)))));
  for (const [verb, action] of [
    ['pause', 'pause'],
    ['reactivate', 'reactivate'],
    ['revoke', 'revoke'],
  ] as const) {
    leaf(key, verb, `${verb} a key`)
      .requiredOption('--id <n>', 'key id', parse.integer(1))
      .action((o: Options) => run(o, (r) => must(r.admin.changeKeyState(o.id as number, action))));
  }
  leaf(key, 'rotate', 'replace a key by a new one with the same settings')
    .requiredOption('--id <n>', 'key id', parse.integer(1))
    .option('--keep-old', 'keep the old key valid for 24 hours')
    .action((o: Options) => run(o, (r) => must(r.admin.rotateKey(o.id as number, o.keepOld === true))));
  leaf(key, 'show', 'show a key\u2019s settings (never the key)')
    .requiredOption('--id <n>', 'key id', parse.integer(1))
    .action((o: Options) => run(o, async (r) => keyView(await must(r.admin.key(o.id as number)), Date.now())));
  webhookCommands(admin, key, leaf, run);
  otpCommands(key, leaf, run);
  otpHoldCommands(admin, leaf, run);
  inboundCommands(admin, leaf, run);
  smppUserCommands(admin, leaf, run);
  iysCommands(admin, leaf, run);

  const blocklist = admin.command('blocklist').description('number blocking lists');
  leaf(blocklist, 'remove', 'take a number off an account\u2019s blocking list')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .requiredOption('--number <text>', 'the number, in any form /blacklist/post/add accepts', parse.nonEmpty)
    .action((o: Options) => run(o, (r) => must(r.admin.unblockNumber(o.account as number, o.number as string))));

  return admin;
}
