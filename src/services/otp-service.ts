import type { Caller } from './auth.js';
import { interactivePriority, messagesFor } from './send-plan.js';
import type { Accepted, SendPlan } from './send-plan.js';
import { fillOtpText, otpCode, otpTemplate } from '../domain/otp.js';
import type { OtpDigits, RandomInt } from '../domain/otp.js';
import { otpClosed, otpCodeHash, otpMask, sameOtpHash, sealOtpText } from '../domain/otp-check.js';
import type { OtpClosed } from '../domain/otp-check.js';
import { destinationPrefixOf } from '../domain/calling-codes.js';
import { effectiveOtpSettings, otpPlaceVerdict } from '../domain/otp-guard.js';
import type { OtpRefusal } from '../domain/otp-guard.js';
import type { OtpGuardRead } from '../ports/otp-store.js';
import { OtpVelocity, otpRefusalFailure } from './otp-velocity.js';
import { smsLangLabel } from '../domain/labels.js';
import type { SmsLang } from '../domain/labels.js';
import type { ResultCode } from '../domain/result-codes.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';

/** The sender of every /otp/send message; it needs no approval on the account. */
export const otpSender = 'OTPSMS';

/** What OTP sending needs of the send pipeline (SendService provides it). */
export interface OtpSends {
  isApprovedSender(accountId: number, title: string): Promise<boolean>;
  accept(caller: Caller, plan: SendPlan, reply: (accepted: Accepted) => unknown): Promise<Result<unknown>>;
}

export interface OtpReply {
  sms_id: number;
  otp_code: number;
  sandbox: boolean;
}

export interface DetailedOtpReply extends OtpReply {
  number_of_sms: number;
  sms_lang: string;
}

export interface DetailedOtpRequest {
  mobile: string;
  title: string;
  text: string;
  lang: SmsLang;
  digits: OtpDigits;
  /** Seconds the code stays valid; absent: the key's setting, else 5 minutes. */
  validity?: number | undefined;
}

/** /otp/verify's answer: `verified`, why not (the code), and the wrong tries still allowed. */
export interface VerifyReply {
  code: ResultCode;
  verified: boolean;
  tries_left: number;
}

const closedCodes: Record<OtpClosed, ResultCode> = { used: 'TS-1092', dead: 'TS-1093', expired: 'TS-1091' };

/**
 * One-time passwords: a code from the injected CSPRNG (`crypto.randomInt` in main.ts), sent
 * as one message through the same pipeline as /sms/send, so it is charged, queued first
 * among sends and answerable by /sms/status. The code is in the response only: it is
 * never put in a failure, a message or a log. What the store keeps of it is a keyed hash
 * (HMAC-SHA256 under the installation's secret), written in the send's transaction, which
 * /otp/verify compares in constant time (docs/decisions.md, "One-time passwords that verify themselves").
 */
export class OtpService {
  private secretValue: string | null = null;

  constructor(
    private readonly sends: OtpSends,
    private readonly randomInt: RandomInt,
    private readonly store: Store,
    private readonly clock: Clock,
    /** Told after a commit that wrote a webhook event (otp.verified). */
    private readonly eventWritten: () => void = () => undefined,
  ) {}

  /** /otp/send: the fixed template in `lang` with the account's OTP brand, from OTPSMS. */
  async send(
    caller: Caller,
    mobile: string,
    digits: OtpDigits,
    lang: SmsLang,
    validity?: number,
  ): Promise<Result<OtpReply>> {
    const code = otpCode(digits, this.randomInt);
    const text = otpTemplate(lang, code, caller.account.otpBrand);
    const stored = otpTemplate(lang, otpMask(digits), caller.account.otpBrand);
    const sent = await this.accept(caller, { mobile, sender: otpSender, text, stored, lang, code, validity });
    return sent.ok ? ok(sent.value.reply) : sent;
  }

  /** /otp/detailed: the caller's approved sender ID and text, with every TS-CODE replaced. */
  async sendDetailed(caller: Caller, request: DetailedOtpRequest): Promise<Result<DetailedOtpReply>> {
    if (!(await this.sends.isApprovedSender(caller.account.id, request.title))) return fail('TS-1028');
    const code = otpCode(request.digits, this.randomInt);
    const text = fillOtpText(request.text, code);
    const sent = await this.accept(caller, {
      mobile: request.mobile,
      sender: request.title,
      text,
      stored: fillOtpText(request.text, otpMask(request.digits)),
      lang: request.lang,
      code,
      validity: request.validity,
    });
    if (!sent.ok) return sent;
    return ok({ ...sent.value.reply, number_of_sms: sent.value.totalSms, sms_lang: smsLangLabel(request.lang) });
  }

  /**
   * /otp/verify: the code of an OTP message of the caller's account (a sandbox key's codes
   * with sandbox keys, a live key's with live keys), checked in one transaction that locks
   * its row: closed codes are answered as such without counting a try; a wrong code counts
   * one; the right one is marked verified (once) with its `otp.verified` event.
   */
  async verify(caller: Caller, smsId: number, offered: string): Promise<Result<VerifyReply>> {
    const secret = await this.secret();
    const now = this.clock.now();
    const outcome = await this.store.transaction(async (store): Promise<Result<VerifyReply & { event: boolean }>> => {
      const otp = await store.otp.findForUpdate(caller.account.id, smsId);
      if (!otp || otp.sandbox !== caller.key.sandbox)
        return fail('TS-1020', { message: 'No one-time code of this account was sent with this sms_id' });
      const left = Math.max(0, otp.maxTries - otp.tries);
      const closed = otpClosed(otp, now);
      if (closed !== null) return ok({ code: closedCodes[closed], verified: false, tries_left: left, event: false });
      if (sameOtpHash(otp.codeHash, otpCodeHash(secret, otp.messageId, offered))) {
        const { event } = await store.otp.markVerified(otp, now);
        return ok({ code: 'TS-1064', verified: true, tries_left: left, event });
      }
      await store.otp.countWrongTry(otp.messageId);
      return ok({ code: 'TS-1090', verified: false, tries_left: left - 1, event: false });
    });
    if (!outcome.ok) return outcome;
    const { event, ...reply } = outcome.value;
    if (event) this.eventWritten();
    return ok(reply);
  }

  /** A guard's refusal, recorded for the panel and console (best effort): it charged nothing either way. */
  private async record(caller: Caller, destination: string, refusal: OtpRefusal, now: number): Promise<void> {
    try {
      await this.store.otp.recordRefusal({
        keyId: caller.key.id,
        accountId: caller.account.id,
        at: now,
        reason: refusal.reason,
        destination,
      });
    } catch {
      // The refusal stands without its record.
    }
  }

  private async secret(): Promise<string> {
    this.secretValue ??= await this.store.otp.secret();
    return this.secretValue;
  }

  private async accept(
    caller: Caller,
    otp: {
      mobile: string;
      sender: string;
      /** The text the carrier gets, with the code. */
      text: string;
      /** The text as stored: the code masked (the plain code is never at rest). */
      stored: string;
      lang: SmsLang;
      code: number;
      validity?: number | undefined;
    },
  ): Promise<Result<{ reply: OtpReply; totalSms: number }>> {
    const { mobile, sender, text, stored, lang, code } = otp;
    const now = this.clock.now();
    const prefix = destinationPrefixOf(mobile);
    let secret: string;
    let read: OtpGuardRead;
    try {
      secret = await this.secret();
      // The pumping guard, before anything is charged: where codes may go (the countries,
      // the conversion watch's hold) before the send; how many, in its transaction (below).
      read = await this.store.otp.guardReads(caller.key.id, caller.account.id, prefix);
    } catch {
      return fail('TS-5000', { message: 'The message could not be saved; retry' });
    }
    const settings = effectiveOtpSettings(read.settings);
    const place = otpPlaceVerdict(settings, read.accountCountries, mobile, read.held);
    if (place !== null) {
      await this.record(caller, mobile, place, now);
      return otpRefusalFailure(place, settings, read.accountCountries);
    }
    const velocity = new OtpVelocity({ keyId: caller.key.id, destination: mobile, prefix, settings });
    const validity = otp.validity ?? settings.validitySeconds;
    const plan: SendPlan = {
      kind: 'otp',
      sender,
      text: stored,
      deliveredText: text,
      lang,
      contentType: 0,
      scheduledAt: null,
      priority: interactivePriority,
      // Counted on the real text: the mask has as many characters of the same alphabet.
      recipients: { now: messagesFor([mobile], text, lang, 'single') },
      // The guard's counts, under the send's lock (services/otp-velocity.ts).
      admit: velocity,
      // The code's hash commits with the send: an OTP that was sent can always be verified.
      alongside: async (store, _sendId, messageIds) => {
        const messageId = messageIds[0];
        if (messageId === undefined) throw new Error('an OTP send wrote no message');
        await store.otp.insert({
          messageId,
          accountId: caller.account.id,
          keyId: caller.key.id,
          sandbox: caller.key.sandbox,
          destination: mobile,
          prefix,
          codeHash: otpCodeHash(secret, messageId, String(code)),
          sealedText: sealOtpText(secret, text),
          createdAt: now,
          expiresAt: now + validity * 1000,
          maxTries: settings.maxTries,
        });
        await velocity.count(store);
      },
    };
    let written: { reply: OtpReply; totalSms: number } | undefined;
    let accepted: Result<unknown>;
    try {
      accepted = await this.sends.accept(caller, plan, ({ sendId, messageIds, totalSms }) => {
        written = { reply: { sms_id: messageIds[0] ?? sendId, otp_code: code, sandbox: caller.key.sandbox }, totalSms };
        return written.reply;
      });
    } catch {
      // The spec's TS-5000 on the OTP endpoints: the message could not be saved, retry.
      // Nothing was charged: the charge and the message are one transaction.
      return fail('TS-5000', { message: 'The message could not be saved; retry' });
    }
    if (!accepted.ok) {
      if (velocity.refusal !== null) await this.record(caller, mobile, velocity.refusal, now);
      return accepted;
    }
    if (!written) return fail('TS-5000', { message: 'The message could not be saved; retry' });
    return ok(written);
  }
}
