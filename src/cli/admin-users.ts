import type { Command } from 'commander';
import type { Config } from '../config.js';
import type { AppContainer } from '../main.js';
import { CommandFailed, must } from './must.js';
import { parse } from './option-parsers.js';
import type { Leaf, Options, Run } from './admin-types.js';

/**
 * Where a one-time link points: --panel-url; else, for a customer of a reseller whose brand
 * has a host, that host over https (the brand's certificate is at the proxy in front of
 * haberci); else the address `serve` listens on by the same options.
 */
function linkFor(token: string, brandHost: string | null, o: Options, config: Config): string {
  const base =
    typeof o.panelUrl === 'string'
      ? o.panelUrl.replace(/\/+$/, '')
      : brandHost !== null
        ? `https://${brandHost}/panel`
        : `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}/panel`;
  return `${base}/set-password?token=${encodeURIComponent(token)}`;
}

/** Prints the link instead of the raw token: the link is what a person is sent. */
async function withLink<T extends { set_password_token?: string; account_id: number | null }>(
  r: AppContainer,
  view: T,
  o: Options,
  config: Config,
): Promise<Omit<T, 'set_password_token'> & { set_password_link?: string }> {
  const { set_password_token: token, ...rest } = view;
  if (token === undefined) return rest;
  const brandHost = typeof o.panelUrl === 'string' ? null : await r.brands.linkHost(view.account_id);
  return { ...rest, set_password_link: linkFor(token, brandHost, o, config) };
}

/** `user create|list|disable|reset-password`: the panel's users. */
export function userCommands(admin: Command, leaf: Leaf, run: Run): void {
  const user = admin.command('user').description('panel users (customer accounts\u2019 and the provider\u2019s)');
  leaf(user, 'create', 'create a panel user; without --password prints a one-time set-password link')
    .option('--account <n>', 'the account the user belongs to', parse.integer(1))
    .option('--provider', 'a provider user (provider console) instead of an account\u2019s')
    .requiredOption('--email <email>', 'the user\u2019s email, used to sign in', parse.nonEmpty)
    .option('--password <text>', 'the password (at least 10 characters); omit it to print a set-password link')
    .option(
      '--panel-url <url>',
      'the panel\u2019s address for the link (default: https://BRAND_HOST/panel for a customer of a reseller whose brand has a host, else http://HOST:PORT/panel from --host/--port or HABERCI_HOST/HABERCI_PORT)',
      parse.url,
    )
    .action((o: Options) => {
      const provider = o.provider === true;
      if (provider === (o.account !== undefined)) throw new CommandFailed('give either --account N or --provider');
      return run(o, async (r, _o, config) =>
        withLink(
          r,
          await must(
            r.panelUsers.create({
              accountId: provider ? null : (o.account as number),
              email: o.email as string,
              ...(typeof o.password === 'string' ? { password: o.password } : {}),
            }),
          ),
          o,
          config,
        ),
      );
    });
  leaf(user, 'list', 'an account\u2019s panel users')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.panelUsers.list(o.account as number))));
  leaf(user, 'disable', 'stop a user from signing in; ends every session of theirs')
    .requiredOption('--id <n>', 'user id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.panelUsers.disable(o.id as number))));
  leaf(
    user,
    'reset-password',
    'clear a user\u2019s password, end their sessions and print a one-time set-password link',
  )
    .requiredOption('--id <n>', 'user id', parse.integer(1))
    .option('--panel-url <url>', 'the panel\u2019s address for the link', parse.url)
    .action((o: Options) =>
      run(o, async (r, _o, config) => withLink(r, await must(r.panelUsers.resetPassword(o.id as number)), o, config)),
    );
}
