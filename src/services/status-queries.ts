import type { ReportStore } from '../ports/reports.js';
import { detailText, statusQueryAnswer } from '../domain/delivery-state.js';
import { localDate, localTime } from '../domain/istanbul-time.js';
import { operatorName } from '../domain/operators.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

export interface StatusRecord {
  code: 'TS-1064' | 'TS-1022';
  fields: {
    sender_id: string;
    date_of_sending: string;
    time_of_sending: string;
    sms_status: string;
    sms_balance: string;
    details: string;
    operator: string;
  };
}

/** /sms/status: the state of one message of an immediate send, derived from the state machine. */
export class StatusQueries {
  constructor(private readonly messages: ReportStore) {}

  async messageStatus(accountId: number, smsId: number): Promise<Result<StatusRecord>> {
    const message = await this.messages.findMessage(smsId, accountId);
    // Messages of scheduled and group sends are reached through their report id only.
    if (!message || message.scheduled || message.sendKind === 'group' || message.sendKind === 'mixed')
      return fail('TS-1020');
    const answer = statusQueryAnswer(message.state);
    return ok({
      code: answer.code,
      fields: {
        sender_id: message.sender,
        date_of_sending: localDate(message.createdAt),
        time_of_sending: localTime(message.createdAt),
        sms_status: answer.text,
        sms_balance: String(message.smsCount),
        details: message.detail ?? detailText(message.state),
        operator: operatorName(message.recipient),
      },
    });
  }
}
