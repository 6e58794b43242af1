import { isTurkeyNumber } from './recipients.js';

/** `sms_lang` (`lang` on /otp/detailed): character set and counting table. */
export type SmsLang = 0 | 1 | 2;
/** `content_type` on /sms/send: echoed back as a label, changes neither route nor price. */
export type ContentType = 0 | 1 | 2;

export const defaultSmsLang: SmsLang = 2;
export const defaultContentType: ContentType = 0;

const smsLangLabels: Record<SmsLang, string> = { 0: 'English', 1: 'Turkish', 2: 'Arabic' };
const contentTypeLabels: Record<ContentType, string> = {
  0: 'Transactional',
  1: 'High Quality',
  2: 'Advertising',
};

export function isSmsLang(value: unknown): value is SmsLang {
  return value === 0 || value === 1 || value === 2;
}

export function isContentType(value: unknown): value is ContentType {
  return value === 0 || value === 1 || value === 2;
}

export function smsLangLabel(lang: SmsLang): string {
  return smsLangLabels[lang];
}

export function contentTypeLabel(type: ContentType): string {
  return contentTypeLabels[type];
}

export type CountryLabel = 'Turkey-TR' | 'GlobalSMS-GL';

/** The `country` field: by the same 905 rule that picks the /sms/send counting table. */
export function countryLabel(normalised: string): CountryLabel {
  return isTurkeyNumber(normalised) ? 'Turkey-TR' : 'GlobalSMS-GL';
}
