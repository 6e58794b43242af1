/**
 * One file, long because the OTP tables (codes, settings, refusals, holds, prefix rates) are
 * one aggregate keyed by the API key, read together by the guard and by the watch. The
 * guard's own statements are in otp-guard-reads.ts.
 *
 * One-time codes (migration 0026): the keyed hash of each OTP message's code, its deadline
 * and tries, and the keys' OTP settings. `markVerified` writes the `otp.verified` event in
 * the same transaction as the verification, so the event exists exactly when it committed.
 */
import type {
  NewOtp,
  OtpCount,
  OtpGuardRead,
  OtpHold,
  OtpHoldFilter,
  OtpRefusalRow,
  OtpSettings,
  OtpStore,
  OtpVelocityRead,
} from '../../ports/otp-store.js';
import type { PrefixConversion } from '../../domain/otp-watch.js';
import type { PrefixRate } from '../../domain/otp-prefix-rate.js';
import { sql } from 'kysely';
import type { StoredOtp } from '../../domain/otp-check.js';
import { StorePart } from './store-part.js';
import { newestOfAccount } from './account-rows.js';
import { hasUrl, newEventRow, resolveTargets } from './event-outbox.js';
import {
  copyPrefixRates,
  readAccountCountries,
  readGuard,
  readVelocity,
  saveAccountCountries,
  settingsOfRow,
  settingsRead,
  writePrefixCode,
} from './otp-guard-reads.js';

export class SqlOtpStore extends StorePart implements OtpStore {
  private cachedSecret: string | null = null;

  async secret(): Promise<string> {
    if (this.cachedSecret !== null) return this.cachedSecret;
    const row = await this.db.selectFrom('otp_secret').select('secret').where('id', '=', 1).executeTakeFirst();
    if (!row) throw new Error('the OTP secret is missing from the store (migration 0026)');
    this.cachedSecret = row.secret;
    return row.secret;
  }

  async insert(otp: NewOtp): Promise<void> {
    await this.db
      .insertInto('otp_codes')
      .values({
        message_id: otp.messageId,
        account_id: otp.accountId,
        key_id: otp.keyId,
        sandbox: otp.sandbox ? 1 : 0,
        destination: otp.destination,
        prefix: otp.prefix,
        code_hash: otp.codeHash,
        sealed_text: otp.sealedText,
        created_at: otp.createdAt,
        expires_at: otp.expiresAt,
        max_tries: otp.maxTries,
        tries: 0,
        verified_at: null,
      })
      .execute();
  }

  async findForUpdate(accountId: number, messageId: number): Promise<StoredOtp | null> {
    const row = await this.sql
      .forUpdate(
        this.db
          .selectFrom('otp_codes')
          .selectAll()
          .where('message_id', '=', messageId)
          .where('account_id', '=', accountId),
      )
      .executeTakeFirst();
    if (!row) return null;
    return {
      messageId: Number(row.message_id),
      accountId: row.account_id,
      keyId: row.key_id,
      sandbox: row.sandbox === 1,
      codeHash: row.code_hash,
      expiresAt: Number(row.expires_at),
      maxTries: row.max_tries,
      tries: row.tries,
      verifiedAt: row.verified_at === null ? null : Number(row.verified_at),
    };
  }

  async countWrongTry(messageId: number): Promise<void> {
    await this.db
      .updateTable('otp_codes')
      .set((eb) => ({ tries: eb('tries', '+', 1) }))
      .where('message_id', '=', messageId)
      .execute();
  }

  async markVerified(otp: StoredOtp, now: number): Promise<{ event: boolean }> {
    await this.db
      .updateTable('otp_codes')
      .set({ verified_at: now })
      .where('message_id', '=', otp.messageId)
      .where('verified_at', 'is', null)
      .execute();
    // To the webhook of the key that sent the message, like the sms.* events. Not limited by
    // the key's event selection (those are the delivery events): the customer asked for
    // this check by calling /otp/verify (docs/decisions.md, "One-time passwords").
    const target = (await resolveTargets(this.db, [otp.keyId])).get(otp.keyId);
    if (!hasUrl(target)) return { event: false };
    await this.db
      .insertInto('webhook_events')
      .values(
        newEventRow(
          {
            keyId: otp.keyId,
            eventType: 'otp.verified',
            smsId: otp.messageId,
            status: null,
            extra: { verified_at: new Date(now).toISOString() },
          },
          now,
        ),
      )
      .execute();
    return { event: true };
  }

  async settingsOf(keyId: number): Promise<OtpSettings> {
    return settingsOfRow((await this.db.executeQuery(settingsRead(this.db, { keyId }))).rows[0]);
  }

  async saveSettings(keyId: number, settings: OtpSettings, now: number): Promise<void> {
    const values = {
      validity_s: settings.validitySeconds,
      max_tries: settings.maxTries,
      countries: settings.countries === null ? null : settings.countries.join(','),
      per_number_hour: settings.perNumberHour,
      per_number_day: settings.perNumberDay,
      per_prefix_minute: settings.perPrefixMinute,
      cooldown_s: settings.cooldownSeconds,
      watch_min_sent: settings.watchMinSent,
      watch_min_share: settings.watchMinShare,
      watch_rise: settings.watchRise,
      prefix_rise: settings.prefixRise,
      prefix_rise_min: settings.prefixRiseMin,
      updated_at: now,
    };
    await this.db
      .insertInto('otp_settings')
      .values({ key_id: keyId, ...values })
      .onConflict((oc) => oc.column('key_id').doUpdateSet(values))
      .execute();
  }

  guardReads(keyId: number, accountId: number, prefix: string): Promise<OtpGuardRead> {
    return readGuard(this.db, keyId, accountId, prefix);
  }

  velocityReads(...read: Parameters<OtpStore['velocityReads']>): Promise<OtpVelocityRead> {
    return readVelocity(this.db, ...read);
  }

  countPrefixCode(keyId: number, prefix: string, rate: PrefixRate): Promise<void> {
    return writePrefixCode(this.db, keyId, prefix, rate);
  }

  accountCountries(accountId: number): Promise<string[] | null> {
    return readAccountCountries(this.db, accountId);
  }

  saveAccountCountries(accountId: number, countries: string[] | null, now: number): Promise<void> {
    return saveAccountCountries(this.db, accountId, countries, now);
  }

  async recordRefusal(refusal: OtpRefusalRow): Promise<void> {
    await this.db
      .insertInto('otp_refusals')
      .values({
        key_id: refusal.keyId,
        account_id: refusal.accountId,
        at: refusal.at,
        reason: refusal.reason,
        destination: refusal.destination,
      })
      .execute();
  }

  async refusals(accountId: number, limit: number): Promise<OtpRefusalRow[]> {
    const rows = await newestOfAccount(this.db, 'otp_refusals', accountId, limit);
    return rows.map((r) => ({
      keyId: r.key_id,
      accountId: r.account_id,
      at: Number(r.at),
      reason: r.reason,
      destination: r.destination,
    }));
  }

  /**
   * Read in twelve time slices of the two windows, each its own short statement with a turn
   * of the event loop between: at 100 codes a second one statement over the 720,000 codes
   * took 4 s of the dispatch thread (better-sqlite3 is synchronous), which its dispatching
   * would have waited for. The slices' sums are added here.
   */
  async conversions(previousSince: number, since: number, matureBefore: number): Promise<PrefixConversion[]> {
    const slices = 12;
    // The two windows end now: since + (since - previousSince).
    const width = Math.max(1, Math.ceil((2 * (since - previousSince)) / slices));
    const pairs = new Map<string, PrefixConversion>();
    for (let i = 0; i < slices; i += 1) {
      const from = previousSince + i * width;
      let q = this.conversionCounts(since, matureBefore).where('created_at', '>', from);
      // The last slice is open above: a code another process stamped a moment ahead counts.
      if (i < slices - 1) q = q.where('created_at', '<=', from + width);
      const rows = await q.groupBy(['key_id', 'prefix']).execute();
      for (const row of rows) {
        const c = conversionOf(row);
        const key = `${c.keyId}:${c.prefix}`;
        const seen = pairs.get(key);
        if (seen === undefined) pairs.set(key, c);
        else {
          seen.sent += c.sent;
          seen.verified += c.verified;
          seen.previousSent += c.previousSent;
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Only pairs with a code in the window are judged.
    return [...pairs.values()].filter((c) => c.sent > 0);
  }

  async conversionOf(
    keyId: number,
    prefix: string,
    after: number,
    since: number,
    matureBefore: number,
  ): Promise<PrefixConversion | null> {
    const row = await this.conversionCounts(since, matureBefore)
      .where('key_id', '=', keyId)
      .where('prefix', '=', prefix)
      .where('created_at', '>', after)
      .groupBy(['key_id', 'prefix'])
      .executeTakeFirst();
    return row ? conversionOf(row) : null;
  }

  /** A conversion's counts of the codes the next wheres pick (sandbox codes never count), to group by key and prefix. */
  private conversionCounts(since: number, matureBefore: number) {
    return this.db
      .selectFrom('otp_codes')
      .select((eb) => [
        'key_id',
        'prefix',
        eb.fn.max('account_id').as('account_id'),
        ...this.counts(since, matureBefore),
      ])
      .where('sandbox', '=', 0);
  }

  /** sent (verified, or older than the grace), verified, and the window before's codes. */
  private counts(since: number, matureBefore: number) {
    return [
      sql<
        number | string
      >`sum(case when created_at > ${since} and (verified_at is not null or created_at <= ${matureBefore}) then 1 else 0 end)`.as(
        'sent',
      ),
      sql<number | string>`sum(case when created_at > ${since} and verified_at is not null then 1 else 0 end)`.as(
        'verified',
      ),
      sql<number | string>`sum(case when created_at <= ${since} then 1 else 0 end)`.as('previous_sent'),
    ] as const;
  }

  async hold(c: PrefixConversion, now: number): Promise<boolean> {
    return this.transact(async (self) => {
      const standing = await self.db
        .selectFrom('otp_holds')
        .select('held_at')
        .where('key_id', '=', c.keyId)
        .where('prefix', '=', c.prefix)
        .where('released_at', 'is', null)
        .limit(1)
        .executeTakeFirst();
      if (standing) return false;
      await self.db
        .insertInto('otp_holds')
        .values({
          key_id: c.keyId,
          prefix: c.prefix,
          held_at: now,
          account_id: c.accountId,
          sent: c.sent,
          verified: c.verified,
          previous_sent: c.previousSent,
          released_at: null,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return true;
    });
  }

  async release(keyId: number, prefix: string | null, now: number): Promise<number> {
    let q = this.db
      .updateTable('otp_holds')
      .set({ released_at: now })
      .where('key_id', '=', keyId)
      .where('released_at', 'is', null);
    if (prefix !== null) q = q.where('prefix', '=', prefix);
    const done = await q.executeTakeFirst();
    return Number(done.numUpdatedRows);
  }

  async holds(filter: OtpHoldFilter): Promise<OtpHold[]> {
    let q = this.db.selectFrom('otp_holds').selectAll();
    if (filter.accountId !== undefined) q = q.where('account_id', '=', filter.accountId);
    if (filter.keyId !== undefined) q = q.where('key_id', '=', filter.keyId);
    if (filter.active === true) q = q.where('released_at', 'is', null);
    const rows = await q.orderBy('held_at', 'desc').limit(filter.limit).execute();
    return rows.map((r) => ({
      keyId: r.key_id,
      accountId: r.account_id,
      prefix: r.prefix,
      sent: r.sent,
      verified: r.verified,
      previousSent: r.previous_sent,
      heldAt: Number(r.held_at),
      releasedAt: r.released_at === null ? null : Number(r.released_at),
    }));
  }

  async lastRelease(keyId: number, prefix: string, since: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('otp_holds')
      .select((eb) => eb.fn.max('released_at').as('at'))
      .where('key_id', '=', keyId)
      .where('prefix', '=', prefix)
      .where('released_at', '>', since)
      .executeTakeFirst();
    return row?.at == null ? null : Number(row.at);
  }

  async countsByDay(accountId: number, since: number, offsetMs: number): Promise<OtpCount[]> {
    const day = sql<number | string>`(created_at + ${sql.lit(Math.trunc(offsetMs))}) / 86400000`;
    const rows = await this.db
      .selectFrom('otp_codes')
      .select((eb) => [
        day.as('bucket'),
        eb.fn.countAll<number | string>().as('sent'),
        eb.fn.count<number | string>('verified_at').as('verified'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy(day)
      .orderBy(day)
      .execute();
    return rows.map((r) => ({ bucket: String(r.bucket), sent: Number(r.sent), verified: Number(r.verified) }));
  }

  async countsByPrefix(accountId: number, since: number, limit: number): Promise<OtpCount[]> {
    const rows = await this.db
      .selectFrom('otp_codes')
      .select((eb) => [
        'prefix',
        eb.fn.countAll<number | string>().as('sent'),
        eb.fn.count<number | string>('verified_at').as('verified'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy('prefix')
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('prefix')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ bucket: r.prefix, sent: Number(r.sent), verified: Number(r.verified) }));
  }

  async carryOver(fromKeyId: number, toKeyId: number, now: number): Promise<void> {
    const settings = await this.db
      .selectFrom('otp_settings')
      .selectAll()
      .where('key_id', '=', fromKeyId)
      .executeTakeFirst();
    if (settings) await this.saveSettings(toKeyId, await this.settingsOf(fromKeyId), now);
    await copyPrefixRates(this.db, fromKeyId, toKeyId);
    const standing = await this.holds({ keyId: fromKeyId, active: true, limit: 10_000 });
    if (standing.length > 0)
      await this.db
        .insertInto('otp_holds')
        .values(
          standing.map((h) => ({
            key_id: toKeyId,
            prefix: h.prefix,
            held_at: h.heldAt,
            account_id: h.accountId,
            sent: h.sent,
            verified: h.verified,
            previous_sent: h.previousSent,
            released_at: null,
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
  }
}

function conversionOf(r: {
  key_id: number;
  prefix: string;
  account_id: number | string | null;
  sent: number | string | null;
  verified: number | string | null;
  previous_sent: number | string | null;
}): PrefixConversion {
  return {
    keyId: Number(r.key_id),
    accountId: Number(r.account_id),
    prefix: r.prefix,
    sent: Number(r.sent ?? 0),
    verified: Number(r.verified ?? 0),
    previousSent: Number(r.previous_sent ?? 0),
  };
}
