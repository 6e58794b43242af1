import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { maxOtpMaxTries, maxOtpValiditySeconds, minOtpValiditySeconds, parseCountries } from '../main.js';
import type { OtpSettings } from '../main.js';
import { must } from './must.js';
import { parse } from './option-parsers.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** `all` (or `default`: the default is every country) is the empty list here (commander keeps no null), null in the patch. */
const countries = (raw: string): string[] => {
  if (raw.trim() === 'all' || raw.trim() === 'default') return [];
  const list = parseCountries(raw);
  if (list === null) throw new InvalidArgumentError('must be calling codes such as 90,49 (or all).');
  return list;
};

/** Options given on the command line, as a patch of the stored settings. */
function patchOf(o: Options): Partial<OtpSettings> {
  const patch: Partial<OtpSettings> = {};
  const numbers = {
    validity: 'validitySeconds',
    tries: 'maxTries',
    perNumberHour: 'perNumberHour',
    perNumberDay: 'perNumberDay',
    perPrefixMinute: 'perPrefixMinute',
    prefixRise: 'prefixRise',
    prefixRiseMin: 'prefixRiseMin',
    cooldown: 'cooldownSeconds',
    watchMinSent: 'watchMinSent',
    watchMinShare: 'watchMinShare',
    watchRise: 'watchRise',
  } as const;
  for (const [option, setting] of Object.entries(numbers)) {
    const v = o[option];
    if (typeof v === 'number') patch[setting] = v;
  }
  if (Array.isArray(o.countries)) patch.countries = o.countries.length === 0 ? null : (o.countries as string[]);
  return patch;
}

/** `key otp`: shows a key's OTP settings, or changes those given. */
export function otpCommands(key: Command, leaf: Leaf, run: Run): void {
  leaf(key, 'otp', 'show a key\u2019s OTP settings, or change those given')
    .requiredOption('--id <n>', 'key id', parse.integer(1))
    .option(
      '--validity <seconds>',
      `how long a code can be verified (default 300)`,
      parse.integer(minOtpValiditySeconds, maxOtpValiditySeconds),
    )
    .option('--tries <n>', 'wrong tries before a code is dead (default 5)', parse.integer(1, maxOtpMaxTries))
    .option('--countries <codes>', 'calling codes codes may go to, e.g. 90,49, or all (default all)', countries)
    .option('--per-number-hour <n>', 'codes to one number an hour, 0 = no limit (default 5)', parse.integer(0))
    .option('--per-number-day <n>', 'codes to one number a day, 0 = no limit (default 10)', parse.integer(0))
    .option(
      '--per-prefix-minute <n>',
      'an absolute limit of codes to one prefix a minute, 0 = none (default 0)',
      parse.integer(0),
    )
    .option(
      '--prefix-rise <n>',
      'rise rule: a prefix may get at most n times its usual codes a minute, 0 = off (default 10)',
      parse.integer(0, 1_000_000),
    )
    .option(
      '--prefix-rise-min <n>',
      'rise rule: codes a prefix may always get in a minute, whatever its history (default 1000)',
      parse.integer(1, 1_000_000_000),
    )
    .option('--cooldown <seconds>', 'seconds between two codes to one number, 0 = none (default 0)', parse.integer(0))
    .option(
      '--watch-min-sent <n>',
      'conversion watch: codes a prefix needs in the hour to be judged, 0 = watch off (default 20)',
      parse.integer(0),
    )
    .option(
      '--watch-min-share <percent>',
      'conversion watch: hold a prefix whose codes are verified below this percent (default 20)',
      parse.integer(0, 100),
    )
    .option(
      '--watch-rise <n>',
      'conversion watch: ...and whose codes this hour are at least n times the hour before (default 2)',
      parse.integer(0, 1000),
    )
    .action((o: Options) =>
      run(o, (r) => {
        const patch = patchOf(o);
        return must(
          Object.keys(patch).length === 0
            ? r.otpSettings.show(o.id as number)
            : r.otpSettings.update(o.id as number, patch),
        );
      }),
    );
}

/** `account otp`: shows an account's OTP countries as the provider set them, or narrows them. */
export function accountOtpCommands(account: Command, leaf: Leaf, run: Run): void {
  leaf(account, 'otp', 'show the countries an account\u2019s OTP codes may go to, or narrow them')
    .requiredOption('--id <n>', 'account id', parse.integer(1))
    .option(
      '--countries <codes>',
      'calling codes, e.g. 90,49, or all (default all); every key of the account stays within them',
      countries,
    )
    .action((o: Options) =>
      run(o, (r) =>
        must(
          Array.isArray(o.countries)
            ? r.otpSettings.accountUpdate(o.id as number, o.countries.length === 0 ? null : (o.countries as string[]))
            : r.otpSettings.accountShow(o.id as number),
        ),
      ),
    );
}

/** `otp holds` and `otp release`: the prefixes the conversion watch holds, and letting them go. */
export function otpHoldCommands(admin: Command, leaf: Leaf, run: Run): void {
  const otp = admin.command('otp').description('one-time passwords: the conversion watch\u2019s holds');
  leaf(otp, 'holds', 'list the destination prefixes held by the conversion watch (standing ones unless --all)')
    .option('--account <n>', 'only this account\u2019s keys', parse.integer(1))
    .option('--key <n>', 'only this key', parse.integer(1))
    .option('--all', 'released holds too')
    .action((o: Options) =>
      run(o, (r) =>
        r.otpSettings.holds({
          ...(typeof o.account === 'number' ? { accountId: o.account } : {}),
          ...(typeof o.key === 'number' ? { keyId: o.key } : {}),
          all: o.all === true,
        }),
      ),
    );
  leaf(otp, 'release', 'release a held prefix of a key (every held prefix of the key without --prefix)')
    .requiredOption('--key <n>', 'key id', parse.integer(1))
    .option('--prefix <digits>', 'the held prefix, e.g. 90532', prefixOption)
    .action((o: Options) =>
      run(o, (r) => must(r.otpSettings.release(o.key as number, typeof o.prefix === 'string' ? o.prefix : null))),
    );
}

function prefixOption(raw: string): string {
  const p = raw.trim().replace(/^\+/, '');
  if (!/^\d{2,8}$/.test(p)) throw new InvalidArgumentError('must be the digits of a prefix, e.g. 90532.');
  return p;
}
