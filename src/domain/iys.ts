/**
 * Commercial messages under Turkish law: the İleti Yönetim Sistemi's words, what
 * a consent record holds, and how a commercial send decides who may receive it.
 */
import { fromLocal } from './istanbul-time.js';

export const recipientTypes = ['BIREYSEL', 'TACIR'] as const;
export type RecipientType = (typeof recipientTypes)[number];

export const consentStatuses = ['ONAY', 'RET'] as const;
export type ConsentStatus = (typeof consentStatuses)[number];

/** The consent sources İYS names (HS_: the service provider collected it; IYS: İYS itself). */
export const consentSources = [
  'HS_FIZIKSEL_ORTAM',
  'HS_ISLAK_IMZA',
  'HS_WEB',
  'HS_CAGRI_MERKEZI',
  'HS_SOSYAL_MEDYA',
  'HS_EPOSTA',
  'HS_MESAJ',
  'HS_MOBIL',
  'HS_EORTAM',
  'HS_ETKINLIK',
  'HS_2015',
  'HS_ATM',
  'HS_KARAR',
  'IYS',
] as const;
export type ConsentSource = (typeof consentSources)[number];

/**
 * The source of a record pulled from İYS (a recipient's own change there). haberci keeps it
 * for those: a customer's record says where the customer collected it, so `IYS` is refused
 * on /iys/consent/add and the panel's form and import (docs/iys.md).
 */
export const pulledSource = 'IYS';

/** The sources a customer may record a consent with: İYS's, but its own. */
export const customerConsentSources = consentSources.filter((s) => s !== pulledSource);

/** One consent as the store keeps it: the newest for its account, recipient and type. */
export interface Consent {
  recipient: string;
  recipientType: RecipientType;
  status: ConsentStatus;
  source: string;
  /** When the recipient gave or withdrew it (epoch ms). */
  consentDate: number;
}

/** Why a recipient of a commercial send was left out. */
export type ConsentGap = 'RET' | 'NONE';

/** The report row's and webhook's reason for a recipient left out of a commercial send. */
export const skippedReason: Record<ConsentGap, string> = {
  RET: 'IYS_RET',
  NONE: 'IYS_NO_CONSENT',
};

/** The message's detail (/sms/status `details`) for a recipient left out. */
export function skippedDetail(gap: ConsentGap, type: RecipientType): string {
  return gap === 'RET'
    ? `İYS: the recipient refused commercial messages (RET, ${type}): not sent, not charged`
    : `İYS: no consent (ONAY, ${type}) on record: not sent, not charged`;
}

/** The reason code of a detail written by `skippedDetail`, or null for any other detail. */
export function reasonOfDetail(detail: string | null): string | null {
  if (detail === null || !detail.startsWith('İYS: ')) return null;
  return detail.includes('(RET,') ? skippedReason.RET : skippedReason.NONE;
}

/**
 * The consent in force of each recipient of a send, in the send's order: `consentMark.none`
 * (no record of that type), `.onay` or `.ret`. One byte a recipient, so a 50,000-number filter
 * builds no map of numbers.
 */
export type ConsentMarks = Uint8Array;
export const consentMark = { none: 0, onay: 1, ret: 2 } as const;

/** The recipients' indexes by what the filter does with them: sent, left out for want of consent, left out for a RET. */
export interface ConsentSplit {
  sent: number[];
  none: number[];
  ret: number[];
}

/**
 * Splits the recipients of a commercial send: those whose newest consent is ONAY are sent,
 * the others are left out with their reason. Order within each side is kept.
 */
export function splitByConsent(marks: ConsentMarks): ConsentSplit {
  const split: ConsentSplit = { sent: [], none: [], ret: [] };
  for (let index = 0; index < marks.length; index++) {
    const mark = marks[index];
    if (mark === consentMark.onay) split.sent.push(index);
    else if (mark === consentMark.ret) split.ret.push(index);
    else split.none.push(index);
  }
  return split;
}

/** `YYYY-MM-DD HH:MM:SS`, Istanbul time, to epoch ms; null when it is not a real instant. */
export function parseConsentDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return fromLocal(y, mo, d, h, mi, s);
}

/**
 * What a commercial send records of its filter: its recipient type and how many recipients
 * were left out for want of consent (`none`) and for a RET (`ret`).
 */
export interface CommercialTally {
  type: RecipientType;
  none: number;
  ret: number;
}

/** The webhook fields (`data`) of the sms.failed event of a recipient left out. */
export function skippedEvent(gap: ConsentGap, type: RecipientType): Record<string, unknown> {
  return { reason: skippedReason[gap], iys_recipient_type: type };
}

/** Marks a message row as left out of a commercial send: failed at once, not charged, with its event. */
export function leaveOut<M extends { smsCount: number; failedDetail?: string; failedEvent?: Record<string, unknown> }>(
  message: M,
  gap: ConsentGap,
  type: RecipientType,
): M {
  message.smsCount = 0;
  message.failedDetail = skippedDetail(gap, type);
  message.failedEvent = skippedEvent(gap, type);
  return message;
}

/**
 * A later list of a commercial send put in the order its send records: the recipients sent
 * first, then those without consent, then those with a RET (each side in its first order),
 * with the tally of the left-out.
 */
export function orderForFilter<T>(
  items: readonly T[],
  split: ConsentSplit,
  type: RecipientType,
): { ordered: T[]; sentCount: number; tally: CommercialTally } {
  const ordered: T[] = [];
  for (const side of [split.sent, split.none, split.ret]) for (const i of side) ordered.push(items[i] as T);
  return { ordered, sentCount: split.sent.length, tally: { type, none: split.none.length, ret: split.ret.length } };
}

/** The replies that withdraw consent when an account has not set its own. */
export const defaultRetWords: readonly string[] = ['RET', 'İPTAL', 'IPTAL', 'STOP'];

/**
 * A text folded for comparing replies: Turkish letters to their Latin base (İ, ı, ş, ğ, ü,
 * ö, ç), upper case, surrounding whitespace and trailing punctuation gone.
 */
export function foldReply(text: string): string {
  return text
    .replace(/[İIıi]/g, 'I')
    .replace(/[Şş]/g, 'S')
    .replace(/[Ğğ]/g, 'G')
    .replace(/[Üü]/g, 'U')
    .replace(/[Öö]/g, 'O')
    .replace(/[Çç]/g, 'C')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .trim()
    .replace(/[\s.!?,;:]+$/u, '');
}

/** Whether a reply's whole text is one of the words (folded alike). */
export function isRetReply(text: string, words: readonly string[]): boolean {
  const folded = foldReply(text);
  return folded !== '' && words.some((w) => foldReply(w) === folded);
}

/** A comma-separated list of RET words as the account setting stores it; null for the default. */
export function parseRetWords(text: string | null): readonly string[] {
  if (text === null) return defaultRetWords;
  const words = text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  return words.length > 0 ? words : defaultRetWords;
}
