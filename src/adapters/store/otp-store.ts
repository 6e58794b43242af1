/**
 * One-time codes (migration 0026): the keyed hash of each OTP message's code, its deadline
 * and tries, and the keys' OTP settings. `markVerified` writes the `otp.verified` event in
 * the same transaction as the verification, so the event exists exactly when it committed.
 */
import type { NewOtp, OtpRefusalRow, OtpSettings, OtpStore } from '../../ports/otp-store.js';
import type { OtpRecent } from '../../domain/otp-guard.js';
import type { StoredOtp } from '../../domain/otp-check.js';
import { StorePart } from './store-part.js';
import { hasUrl, newEventId, resolveTargets } from './event-outbox.js';

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
      .values({
        event_id: newEventId(),
        key_id: otp.keyId,
        event_type: 'otp.verified',
        sms_id: otp.messageId,
        status: null,
        data: JSON.stringify({ verified_at: new Date(now).toISOString() }),
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        lease_until: null,
        created_at: now,
        done_at: null,
      })
      .execute();
    return { event: true };
  }

  async settingsOf(keyId: number): Promise<OtpSettings> {
    const row = await this.db.selectFrom('otp_settings').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    return {
      validitySeconds: row?.validity_s ?? null,
      maxTries: row?.max_tries ?? null,
      countries: row?.countries == null ? null : row.countries.split(','),
      perNumberHour: row?.per_number_hour ?? null,
      perNumberDay: row?.per_number_day ?? null,
      perPrefixMinute: row?.per_prefix_minute ?? null,
      cooldownSeconds: row?.cooldown_s ?? null,
    };
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
      updated_at: now,
    };
    await this.db
      .insertInto('otp_settings')
      .values({ key_id: keyId, ...values })
      .onConflict((oc) => oc.column('key_id').doUpdateSet(values))
      .execute();
  }

  async recent(keyId: number, destination: string, prefix: string, now: number): Promise<OtpRecent> {
    const hourAgo = now - 3_600_000;
    const number = await this.db
      .selectFrom('otp_codes')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('day'),
        eb.fn.sum<number | string | null>(eb.case().when('created_at', '>', hourAgo).then(1).else(0).end()).as('hour'),
        eb.fn.max<number | string | null>('created_at').as('last_at'),
      ])
      .where('destination', '=', destination)
      .where('created_at', '>', now - 86_400_000)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    const byPrefix = await this.db
      .selectFrom('otp_codes')
      .select((eb) => eb.fn.countAll<number | string>().as('minute'))
      .where('key_id', '=', keyId)
      .where('prefix', '=', prefix)
      .where('created_at', '>', now - 60_000)
      .executeTakeFirst();
    return {
      numberLastDay: Number(number?.day ?? 0),
      numberLastHour: Number(number?.hour ?? 0),
      numberLastAt: number?.last_at == null ? null : Number(number.last_at),
      prefixLastMinute: Number(byPrefix?.minute ?? 0),
    };
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
    const rows = await this.db
      .selectFrom('otp_refusals')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      keyId: r.key_id,
      accountId: r.account_id,
      at: Number(r.at),
      reason: r.reason,
      destination: r.destination,
    }));
  }
}
