/**
 * The OTP guard's statements (used by SqlOtpStore), each compiled once per database:
 *
 * - before a send, `guardRead`: the key's settings, the provider's countries of its
 *   account, and whether the conversion watch holds the prefix (one round trip);
 * - in the send's transaction, after the account's lock, `velocityRead`: what the key sent
 *   to the number (last day and hour, the last one's time), to the prefix in the last
 *   minute (only while its absolute limit is on: otherwise the range asked is empty), and
 *   the prefix's rate row; then, with the code, `countPrefix`: one code more in the
 *   prefix's minute. Read and written under the account's lock, the counts hold every code
 *   committed before, in any process (docs/decisions.md, "The OTP guard's defaults").
 */
import { sql } from 'kysely';
import type { OtpAccountSettingsTable, OtpSettingsTable } from './schema.js';
import type { Executor } from './executor.js';
import { preparedQuery } from './prepared-query.js';
import type { OtpSettings } from '../../domain/otp-guard.js';
import type { PrefixRate } from '../../domain/otp-prefix-rate.js';
import type { OtpGuardRead, OtpVelocityRead } from '../../ports/otp-store.js';

type Count = number | string | null;
type Nullable<T> = { [K in keyof T]: T[K] | null };
export type SettingsRow = Nullable<OtpSettingsTable>;

export const settingsRead = preparedQuery(
  (db, p: { keyId: number }) => db.selectFrom('otp_settings').selectAll().where('key_id', '=', p.keyId),
  ['keyId'],
);

const guardRead = preparedQuery(
  (db, p: { keyId: number; accountId: number; prefix: string }) => ({
    compile: () =>
      sql<SettingsRow & { account_countries: string | null; held: Count }>`select s.*,
        a.countries as account_countries,
        (select count(*) from otp_holds where key_id = ${p.keyId} and prefix = ${p.prefix} and released_at is null) as held
        from (select 1 as one) o
        left join otp_settings s on s.key_id = ${p.keyId}
        left join otp_account_settings a on a.account_id = ${p.accountId}`.compile(db),
  }),
  ['keyId', 'accountId', 'prefix'],
);

/** The counts, and the prefix's rate row (all null without one). */
interface VelocityRow {
  day: Count;
  hour: Count;
  last_at: Count;
  minute: Count;
  rate_minute: Count;
  rate_codes: Count;
  rate_baseline: Count;
}

const velocityRead = preparedQuery(
  (
    db,
    p: {
      keyId: number;
      destination: string;
      prefix: string;
      dayAgo: number;
      hourAgo: number;
      minuteFrom: number;
    },
  ) => ({
    compile: () =>
      sql<VelocityRow>`select
        (select count(*) from otp_codes where destination = ${p.destination} and key_id = ${p.keyId} and created_at > ${p.dayAgo}) as day,
        (select count(*) from otp_codes where destination = ${p.destination} and key_id = ${p.keyId} and created_at > ${p.hourAgo}) as hour,
        (select max(created_at) from otp_codes where destination = ${p.destination} and key_id = ${p.keyId} and created_at > ${p.dayAgo}) as last_at,
        (select count(*) from otp_codes where key_id = ${p.keyId} and prefix = ${p.prefix} and created_at > ${p.minuteFrom}) as minute,
        r.minute as rate_minute, r.codes as rate_codes, r.baseline as rate_baseline
        from (select 1 as one) o
        left join otp_prefix_rates r on r.key_id = ${p.keyId} and r.prefix = ${p.prefix}`.compile(db),
  }),
  ['keyId', 'destination', 'prefix', 'dayAgo', 'hourAgo', 'minuteFrom'],
);

/**
 * One code more to the prefix in `minute`. The row as read moved to `minute` gives the
 * baseline (`baseline`, domain rateAt); a row already of `minute` (or later: another
 * process's clock ahead) counts one more. Only this transaction can have moved the row since
 * the read (the account's lock), so the baseline given is the stored row's.
 */
const countPrefix = preparedQuery(
  (db, p: { keyId: number; prefix: string; minute: number; baseline: number }) => ({
    compile: () =>
      sql`insert into otp_prefix_rates (key_id, prefix, minute, codes, baseline)
        values (${p.keyId}, ${p.prefix}, ${p.minute}, 1, ${p.baseline})
        on conflict (key_id, prefix) do update set
          codes = case when otp_prefix_rates.minute >= excluded.minute then otp_prefix_rates.codes + 1 else 1 end,
          baseline = case when otp_prefix_rates.minute >= excluded.minute then otp_prefix_rates.baseline else excluded.baseline end,
          minute = case when otp_prefix_rates.minute >= excluded.minute then otp_prefix_rates.minute else excluded.minute end`.compile(
        db,
      ),
  }),
  ['keyId', 'prefix', 'minute', 'baseline'],
);

const accountRead = preparedQuery(
  (db, p: { accountId: number }) =>
    db.selectFrom('otp_account_settings').select('countries').where('account_id', '=', p.accountId),
  ['accountId'],
);

export function settingsOfRow(row: SettingsRow | undefined): OtpSettings {
  return {
    validitySeconds: row?.validity_s ?? null,
    maxTries: row?.max_tries ?? null,
    countries: countriesOf(row?.countries),
    perNumberHour: row?.per_number_hour ?? null,
    perNumberDay: row?.per_number_day ?? null,
    perPrefixMinute: row?.per_prefix_minute ?? null,
    prefixRise: row?.prefix_rise ?? null,
    prefixRiseMin: row?.prefix_rise_min ?? null,
    cooldownSeconds: row?.cooldown_s ?? null,
    watchMinSent: row?.watch_min_sent ?? null,
    watchMinShare: row?.watch_min_share ?? null,
    watchRise: row?.watch_rise ?? null,
  };
}

function countriesOf(stored: string | null | undefined): string[] | null {
  return stored == null || stored === '' ? null : stored.split(',');
}

export async function readGuard(db: Executor, keyId: number, accountId: number, prefix: string): Promise<OtpGuardRead> {
  const row = (await db.executeQuery(guardRead(db, { keyId, accountId, prefix }))).rows[0];
  return {
    settings: settingsOfRow(row),
    accountCountries: countriesOf(row?.account_countries),
    held: Number(row?.held ?? 0) > 0,
  };
}

export async function readVelocity(
  db: Executor,
  keyId: number,
  destination: string,
  prefix: string,
  now: number,
  prefixMinute: boolean,
): Promise<OtpVelocityRead> {
  const row = (
    await db.executeQuery(
      velocityRead(db, {
        keyId,
        destination,
        prefix,
        dayAgo: now - 86_400_000,
        hourAgo: now - 3_600_000,
        // Off: a range that holds nothing, which the index answers at once.
        minuteFrom: prefixMinute ? now - 60_000 : Number.MAX_SAFE_INTEGER,
      }),
    )
  ).rows[0];
  const rate: PrefixRate | null =
    row?.rate_minute == null
      ? null
      : {
          minute: Number(row.rate_minute),
          codes: Number(row.rate_codes ?? 0),
          baseline: Number(row.rate_baseline ?? 0),
        };
  return {
    numberLastDay: Number(row?.day ?? 0),
    numberLastHour: Number(row?.hour ?? 0),
    numberLastAt: row?.last_at == null ? null : Number(row.last_at),
    prefixLastMinute: Number(row?.minute ?? 0),
    prefixRate: rate,
  };
}

export async function writePrefixCode(db: Executor, keyId: number, prefix: string, rate: PrefixRate): Promise<void> {
  await db.executeQuery(countPrefix(db, { keyId, prefix, minute: rate.minute, baseline: rate.baseline }));
}

export async function readAccountCountries(db: Executor, accountId: number): Promise<string[] | null> {
  return countriesOf((await db.executeQuery(accountRead(db, { accountId }))).rows[0]?.countries);
}

export async function saveAccountCountries(
  db: Executor,
  accountId: number,
  countries: string[] | null,
  now: number,
): Promise<void> {
  const values: Omit<OtpAccountSettingsTable, 'account_id'> = {
    countries: countries === null ? null : countries.join(','),
    updated_at: now,
  };
  await db
    .insertInto('otp_account_settings')
    .values({ account_id: accountId, ...values })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
    .execute();
}

/** Copies a key's prefix rates to another key (a rotation keeps the history the rise rule judges by). */
export async function copyPrefixRates(db: Executor, fromKeyId: number, toKeyId: number): Promise<void> {
  await sql`insert into otp_prefix_rates (key_id, prefix, minute, codes, baseline)
    select ${toKeyId}, prefix, minute, codes, baseline from otp_prefix_rates where key_id = ${fromKeyId}
    on conflict (key_id, prefix) do nothing`.execute(db);
}
