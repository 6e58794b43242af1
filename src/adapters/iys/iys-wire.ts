/**
 * The İYS REST API's shape as haberci speaks it (the client) and mimics it (`haberci
 * iys-sim`): the paths, and a consent as it travels. İYS writes a mobile number `+905...`,
 * a date `YYYY-MM-DD HH:MM:SS` (Istanbul time) and the channel `type` (MESAJ: SMS).
 */
import { consentSources, consentStatuses, parseConsentDate, recipientTypes } from '../../domain/iys.js';
import type { Consent } from '../../domain/iys.js';
import { localDateTime } from '../../domain/istanbul-time.js';
import { turkishMobile } from '../../domain/recipients.js';

/** OAuth2 password grant: `{grant_type: "password", username, password}` -> `{access_token, expires_in, ...}`. */
export const tokenPath = '/oauth2/token';

/** The base of a brand's consent paths. */
export function brandPath(iysCode: string, brandCode: string): string {
  return `/sps/${encodeURIComponent(iysCode)}/brands/${encodeURIComponent(brandCode)}`;
}

/** Under brandPath: one consent (POST), a batch (POST, then GET `/request/{requestId}`), a query, the changes. */
export const consentPaths = {
  single: '/consents',
  batch: '/consents/request',
  status: '/consents/status',
  changes: '/consents/changes',
} as const;

/** Consents a batch request holds at most. */
export const maxBatch = 1000;

export interface WireConsent {
  consentDate: string;
  source: string;
  recipient: string;
  recipientType: string;
  status: string;
  type: string;
}

export function toWire(c: Consent): WireConsent {
  return {
    consentDate: localDateTime(c.consentDate),
    source: c.source,
    recipient: `+${c.recipient}`,
    recipientType: c.recipientType,
    status: c.status,
    type: 'MESAJ',
  };
}

const isOneOf = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === 'string' && (list as readonly string[]).includes(v);

/** A consent as İYS sent it, or why it is not one (only MESAJ consents of Türkiye mobiles are). */
export function fromWire(item: unknown): Consent | string {
  if (typeof item !== 'object' || item === null) return 'not an object';
  const w = item as Record<string, unknown>;
  if (w.type !== undefined && w.type !== 'MESAJ') return `type ${String(w.type)} is not MESAJ`;
  const recipient = typeof w.recipient === 'string' ? turkishMobile(w.recipient) : null;
  if (recipient === null) return 'recipient is not a Türkiye mobile number';
  if (!isOneOf(recipientTypes, w.recipientType)) return 'recipientType must be BIREYSEL or TACIR';
  if (!isOneOf(consentStatuses, w.status)) return 'status must be ONAY or RET';
  if (!isOneOf(consentSources, w.source)) return 'unknown source';
  const date = typeof w.consentDate === 'string' ? parseConsentDate(w.consentDate) : null;
  if (date === null) return 'consentDate must be YYYY-MM-DD HH:MM:SS';
  return { recipient, recipientType: w.recipientType, status: w.status, source: w.source, consentDate: date };
}
