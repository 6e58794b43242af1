import type { Caller } from './auth.js';
import { interactivePriority, messagesFor } from './send-plan.js';
import type { Accepted, SendPlan } from './send-plan.js';
import { fillOtpText, otpCode, otpTemplate } from '../domain/otp.js';
import type { OtpDigits, RandomInt } from '../domain/otp.js';
import { smsLangLabel } from '../domain/labels.js';
import type { SmsLang } from '../domain/labels.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

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
}

/**
 * One-time passwords: a code from the injected CSPRNG (`crypto.randomInt` in main.ts), sent
 * as one message through the same pipeline as /sms/send, so it is charged, queued first
 * among sends and answerable by /sms/status. The code is in the response only: it is
 * never put in a failure, a message or a log.
 */
export class OtpService {
  constructor(
    private readonly sends: OtpSends,
    private readonly randomInt: RandomInt,
  ) {}

  /** /otp/send: the fixed template in `lang` with the account's OTP brand, from OTPSMS. */
  async send(caller: Caller, mobile: string, digits: OtpDigits, lang: SmsLang): Promise<Result<OtpReply>> {
    const code = otpCode(digits, this.randomInt);
    const text = otpTemplate(lang, code, caller.account.otpBrand);
    const sent = await this.accept(caller, mobile, otpSender, text, lang, code);
    return sent.ok ? ok(sent.value.reply) : sent;
  }

  /** /otp/detailed: the caller's approved sender ID and text, with every TS-CODE replaced. */
  async sendDetailed(caller: Caller, request: DetailedOtpRequest): Promise<Result<DetailedOtpReply>> {
    if (!(await this.sends.isApprovedSender(caller.account.id, request.title))) return fail('TS-1028');
    const code = otpCode(request.digits, this.randomInt);
    const text = fillOtpText(request.text, code);
    const sent = await this.accept(caller, request.mobile, request.title, text, request.lang, code);
    if (!sent.ok) return sent;
    return ok({ ...sent.value.reply, number_of_sms: sent.value.totalSms, sms_lang: smsLangLabel(request.lang) });
  }

  private async accept(
    caller: Caller,
    mobile: string,
    sender: string,
    text: string,
    lang: SmsLang,
    code: number,
  ): Promise<Result<{ reply: OtpReply; totalSms: number }>> {
    const plan: SendPlan = {
      kind: 'otp',
      sender,
      text,
      lang,
      contentType: 0,
      scheduledAt: null,
      priority: interactivePriority,
      recipients: { now: messagesFor([mobile], text, lang, 'single') },
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
    if (!accepted.ok) return accepted;
    if (!written) return fail('TS-5000', { message: 'The message could not be saved; retry' });
    return ok(written);
  }
}
