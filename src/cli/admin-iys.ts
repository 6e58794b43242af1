import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parse } from './option-parsers.js';
import { must } from './must.js';
import type { Leaf, Options, Run } from './admin-types.js';
import { sealSecret, secretKeyAt } from '../util/secret-box.js';

/**
 * `iys configure` and `iys show`. The password given with `--password` is sealed
 * here (AES-256-GCM, src/util/secret-box.ts) under the key in `--secret-key-file` (default
 * `secret.key` in the data folder, made at first use with mode 0600), so the store holds
 * only ciphertext; `--password-file` stores the file's path instead and the file is read
 * when the password is needed. Neither prints the password.
 */
export function iysCommands(admin: Command, leaf: Leaf, run: Run): void {
  const iys = admin.command('iys').description('commercial messages: an account\u2019s İYS settings');
  leaf(
    iys,
    'configure',
    'set an account\u2019s İYS code, brand code and, to sync with İYS, its address and credentials',
  )
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .requiredOption('--iys-code <n>', 'the İYS code of the account\u2019s company', parse.nonEmpty)
    .requiredOption('--brand-code <n>', 'the brand code in İYS', parse.nonEmpty)
    .option('--url <url>', 'the İYS service\u2019s address (or haberci iys-sim\u2019s)', parse.nonEmpty)
    .option('--username <text>', 'the İYS API user', parse.nonEmpty)
    .option('--password <text>', 'the İYS API password (kept encrypted; never printed)', parse.nonEmpty)
    .option('--password-file <path>', 'a file holding the İYS API password, read when it is needed', parse.nonEmpty)
    .option('--secret-key-file <path>', 'the key that encrypts the password (default: secret.key in --data)')
    .option('--ret-words <list>', 'comma-separated replies that withdraw consent (default RET,İPTAL,IPTAL,STOP)')
    .option(
      '--text-rules <mode>',
      'warn (default): the panel warns of a commercial text without its sender or opt-out; refuse: the panel and the API (TS-1160) refuse it',
    )
    .action((o: Options) =>
      run(o, (r, _o, config) => {
        if (o.textRules !== undefined && o.textRules !== 'warn' && o.textRules !== 'refuse')
          throw new Error('--text-rules must be warn or refuse');
        if (o.password !== undefined && o.passwordFile !== undefined)
          throw new Error('give --password or --password-file, not both');
        const keyFile = typeof o.secretKeyFile === 'string' ? o.secretKeyFile : resolve(config.data, 'secret.key');
        const passwordSecret =
          typeof o.password === 'string'
            ? `sealed:${sealSecret(secretKeyAt(keyFile), o.password)}`
            : typeof o.passwordFile === 'string'
              ? `file:${resolve(o.passwordFile)}`
              : undefined;
        return must(
          r.iysAdmin.configure(o.account as number, {
            iysCode: o.iysCode as string,
            brandCode: o.brandCode as string,
            ...(typeof o.url === 'string' ? { url: o.url } : {}),
            ...(typeof o.username === 'string' ? { username: o.username } : {}),
            ...(passwordSecret !== undefined ? { passwordSecret } : {}),
            ...(typeof o.retWords === 'string' ? { retWords: o.retWords } : {}),
            ...(typeof o.textRules === 'string' ? { refuseTextRules: o.textRules === 'refuse' } : {}),
          }),
        );
      }),
    );
  leaf(iys, 'show', 'show an account\u2019s İYS settings (never the password)')
    .requiredOption('--account <n>', 'account id', parse.integer(1))
    .action((o: Options) => run(o, (r) => must(r.iysAdmin.show(o.account as number))));
}
