/**
 * Consents for commercial messages: /iys/consent/add and /iys/consent/status,
 * and the lookup a commercial send filters its recipients by. docs/iys.md says how.
 */
import type { Clock } from '../ports/clock.js';
import type { ConsentStore } from '../ports/consent-store.js';
import {
  customerConsentSources,
  consentStatuses,
  parseConsentDate,
  pulledSource,
  recipientTypes,
} from '../domain/iys.js';
import type { Consent, ConsentStatus, RecipientType } from '../domain/iys.js';
import { turkishMobile } from '../domain/recipients.js';
import { localDateTime } from '../domain/istanbul-time.js';
import type { ResultCode } from '../domain/result-codes.js';

/** Consents per /iys/consent/add request. */
export const maxConsentsPerRequest = 1000;

export interface ConsentItemError {
  /** The item's position in `consents`, from 0. */
  index: number;
  code: ResultCode;
  message: string;
}

export interface ConsentsAdded {
  added: number;
  failed: number;
  errors: ConsentItemError[];
}

export interface ConsentStatusAnswer {
  /** The number as normalised. */
  recipient: string;
  status: ConsentStatus | 'NONE';
  consent_date: string;
  source: string;
}

const isOneOf = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === 'string' && (list as readonly string[]).includes(v);

/** Which part of a consent is wrong (the panel's import report says it in the user's language). */
export type ConsentProblem =
  'object' | 'recipient' | 'status' | 'recipient_type' | 'source' | 'source_iys' | 'consent_date' | 'future';

/** One item of /iys/consent/add checked: the consent, or why it is refused. */
export function consentOf(
  item: unknown,
  now: number,
): Consent | { code: ResultCode; message: string; problem: ConsentProblem } {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return { code: 'TS-1033', message: 'a consent must be an object', problem: 'object' };
  const c = item as Record<string, unknown>;
  const raw = typeof c.recipient === 'number' ? String(c.recipient) : c.recipient;
  const recipient = typeof raw === 'string' ? turkishMobile(raw) : null;
  if (recipient === null)
    return { code: 'TS-1025', message: 'recipient must be a Türkiye mobile number', problem: 'recipient' };
  if (!isOneOf(consentStatuses, c.status))
    return { code: 'TS-1033', message: 'status must be ONAY or RET', problem: 'status' };
  const type = c.recipient_type ?? 'BIREYSEL';
  if (!isOneOf(recipientTypes, type))
    return { code: 'TS-1033', message: 'recipient_type must be BIREYSEL or TACIR', problem: 'recipient_type' };
  if (c.source === pulledSource)
    return {
      code: 'TS-1033',
      message: `source ${pulledSource} is kept for records pulled from İYS: give where the consent was collected (such as HS_WEB)`,
      problem: 'source_iys',
    };
  if (!isOneOf(customerConsentSources, c.source))
    return {
      code: 'TS-1033',
      message: `source must be one of ${customerConsentSources.join(', ')}`,
      problem: 'source',
    };
  const date = typeof c.consent_date === 'string' ? parseConsentDate(c.consent_date) : null;
  if (date === null)
    return {
      code: 'TS-1033',
      message: 'consent_date must be YYYY-MM-DD HH:MM:SS (Istanbul time)',
      problem: 'consent_date',
    };
  if (date > now) return { code: 'TS-1033', message: 'consent_date is in the future', problem: 'future' };
  return { recipient, recipientType: type, status: c.status, source: c.source, consentDate: date };
}

export class ConsentService {
  constructor(
    private readonly consents: ConsentStore,
    private readonly clock: Clock,
  ) {}

  /** Records the valid items (the newest per recipient and type wins); each invalid one is an error of its own. */
  async add(accountId: number, items: readonly unknown[]): Promise<ConsentsAdded> {
    const now = this.clock.now();
    const errors: ConsentItemError[] = [];
    const valid: Consent[] = [];
    items.forEach((item, index) => {
      const checked = consentOf(item, now);
      if ('code' in checked) errors.push({ index, code: checked.code, message: checked.message });
      else valid.push(checked);
    });
    await this.consents.record(accountId, valid, now);
    return { added: valid.length, failed: errors.length, errors };
  }

  async status(accountId: number, rawRecipient: string, type: RecipientType): Promise<ConsentStatusAnswer | null> {
    const recipient = turkishMobile(rawRecipient);
    if (recipient === null) return null;
    const found = await this.consents.find(accountId, recipient, type);
    if (!found) return { recipient, status: 'NONE', consent_date: '', source: '' };
    return { recipient, status: found.status, consent_date: localDateTime(found.consentDate), source: found.source };
  }
}
