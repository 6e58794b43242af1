/** How the panel writes times and states, in the page's language. */
import type { Lang } from '../catalogue.js';
import { kitText } from './text.js';
import type { KeyState } from '../../domain/api-key.js';
import type { DeliveryState, PartState } from '../../domain/delivery-state.js';

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * A moment in Istanbul time: epoch milliseconds, or an ISO 8601 string (the views the panel
 * shares with `haberci admin`). To the minute for what people set or change (keys,
 * accounts, users, the ledger); to the second for the life of messages and the console's
 * live figures, where seconds tell steps apart.
 */
export function dateTime(at: number | string, lang: Lang, precision: 'minute' | 'second' = 'minute'): string {
  const name = `${lang}-${precision}`;
  let format = formats.get(name);
  if (!format) {
    format = new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', {
      dateStyle: 'medium',
      timeStyle: precision === 'minute' ? 'short' : 'medium',
      timeZone: 'Europe/Istanbul',
    });
    formats.set(name, format);
  }
  return format.format(new Date(at));
}

/** A key's state (Active, Paused, Expired, Revoked) or a message's or part's (queued ... expired), by name. */
export function stateLabel(state: KeyState | DeliveryState | PartState, lang: Lang): string {
  const t = kitText[lang];
  return {
    Active: t.keyActive,
    Paused: t.keyPaused,
    Expired: t.keyExpired,
    Revoked: t.keyRevoked,
    queued: t.stateQueued,
    submitting: t.stateSubmitting,
    sent: t.stateSent,
    delivered: t.stateDelivered,
    failed: t.stateFailed,
    expired: t.stateExpired,
    paused: t.statePaused,
    cancelled: t.stateCancelled,
  }[state];
}
