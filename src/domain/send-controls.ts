/**
 * A send's window, speed and validity (../shared/interfaces.md, "Campaign controls";
 * docs/decisions.md, "Send window, speed and validity"): when its messages may go out
 * (Istanbul time, days of the week), how many a minute at most, and until when they may be
 * submitted at all.
 *
 * - A window `{from, to, days}` opens on each of `days` (1 = Monday) at `from` and closes at
 *   `to` the same day, or, when `to` is not after `from`, the next day (a window across
 *   midnight belongs to the day it opens on). `to` may be `24:00`.
 * - The speed is kept by the times the messages are due: message k of a send is due an
 *   interval (60,000 ms / speed) after message k − 1, counted in open time of the window.
 * - The validity is an instant: a message not submitted by then ends `expired`.
 */
import { dayStart, istanbulDay } from './istanbul-time.js';

export interface SendWindow {
  /** Minutes after the local midnight, 0..1439. */
  from: number;
  /** Minutes after the local midnight, 1..1440. */
  to: number;
  /** ISO weekdays, 1 = Monday .. 7 = Sunday, ascending, no repeats. */
  days: number[];
}

export interface SendControls {
  window: SendWindow | null;
  /** Messages a minute at most; null: as fast as the carrier takes them. */
  speed: number | null;
  /** Validity in minutes, 1..2880; null: none. */
  validityMinutes: number | null;
}

export const maxSpeed = 100_000;
export const maxValidityMinutes = 2880;
const minuteMs = 60_000;

/** No control asked for: the send goes as every other. */
export function noControls(c: SendControls): boolean {
  return c.window === null && c.speed === null && c.validityMinutes === null;
}

function clock(text: string, allowEnd: boolean): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (minutes > 59) return null;
  const total = hours * 60 + minutes;
  if (hours < 24 || (allowEnd && total === 1440)) return total;
  return null;
}

/**
 * A window as the API takes it (`{"from": "HH:MM", "to": "HH:MM", "days": [1..7]}`), or the
 * reason it is not one. `days` may be left out: every day.
 */
export function parseSendWindow(input: unknown): { ok: true; window: SendWindow } | { ok: false; reason: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, reason: 'send_window must be an object {"from": "HH:MM", "to": "HH:MM", "days": [1..7]}' };
  const fields = input as Record<string, unknown>;
  const extra = Object.keys(fields).find((k) => k !== 'from' && k !== 'to' && k !== 'days');
  if (extra !== undefined)
    return { ok: false, reason: `send_window has no field ${JSON.stringify(extra.slice(0, 40))}` };
  const from = typeof fields.from === 'string' ? clock(fields.from, false) : null;
  if (from === null) return { ok: false, reason: 'send_window.from must be a time HH:MM from 00:00 to 23:59' };
  const to = typeof fields.to === 'string' ? clock(fields.to, true) : null;
  if (to === null) return { ok: false, reason: 'send_window.to must be a time HH:MM from 00:00 to 24:00' };
  // `to` 00:00 is the end of the day, as 24:00.
  const end = to === 0 ? 1440 : to;
  if (end === from) return { ok: false, reason: 'send_window.from and send_window.to must differ' };
  const rawDays = fields.days === undefined ? [1, 2, 3, 4, 5, 6, 7] : fields.days;
  if (
    !Array.isArray(rawDays) ||
    rawDays.length === 0 ||
    rawDays.length > 7 ||
    !rawDays.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 7)
  )
    return { ok: false, reason: 'send_window.days must be a list of 1 to 7 weekdays, 1 (Monday) to 7 (Sunday)' };
  const days = [...new Set(rawDays as number[])].sort((a, b) => a - b);
  return { ok: true, window: { from, to: end, days } };
}

const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The window as the API shows it. */
export function windowView(w: SendWindow): { from: string; to: string; days: number[] } {
  return { from: hhmm(w.from), to: hhmm(w.to), days: [...w.days] };
}

/** ISO weekday of an Istanbul day number (day 0, 1970-01-01, was a Thursday). */
export function weekdayOf(day: number): number {
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

/** The open spans of the window that end after `at`, from the one holding it (or the next). */
function spanAtOrAfter(w: SendWindow, at: number): { start: number; end: number } {
  const today = istanbulDay(at);
  // A span opened yesterday may still run (across midnight); a week and a day covers every weekday.
  for (let day = today - 1; day <= today + 8; day += 1) {
    if (!w.days.includes(weekdayOf(day))) continue;
    const midnight = dayStart(day);
    const start = midnight + w.from * minuteMs;
    const end = w.to === 1440 ? dayStart(day + 1) : (w.to > w.from ? midnight : dayStart(day + 1)) + w.to * minuteMs;
    if (end > at) return { start, end };
  }
  // Unreachable for a parsed window (it has a day); a week on is a safe answer.
  return { start: at + 7 * 1440 * minuteMs, end: at + 8 * 1440 * minuteMs };
}

/** Whether the window is open at `at`. */
export function windowOpen(w: SendWindow, at: number): boolean {
  return spanAtOrAfter(w, at).start <= at;
}

/** `at` when the window is open then; otherwise when it next opens. */
export function nextOpening(w: SendWindow, at: number): number {
  return Math.max(at, spanAtOrAfter(w, at).start);
}

/**
 * The due times of `count` messages of a send written at `start`, its pace resumed at
 * `paceFrom` (the send's next free slot, or null for its first messages): each in the
 * window, an interval apart when a speed is set; none later than `validUntil` (a message due
 * then is claimed to be ended `expired`). `next`: the send's next free slot after them.
 */
export function dueTimes(
  controls: Pick<SendControls, 'window' | 'speed'>,
  start: number,
  count: number,
  pace: { from: number | null; validUntil: number | null },
): { dueAts: number[]; next: number | null } {
  const { window, speed } = controls;
  const cap = pace.validUntil ?? Number.POSITIVE_INFINITY;
  const dueAts: number[] = [];
  if (speed === null) {
    const at = Math.min(window === null ? start : nextOpening(window, start), cap);
    for (let i = 0; i < count; i++) dueAts.push(at);
    return { dueAts, next: null };
  }
  const interval = minuteMs / speed;
  let t = Math.max(start, pace.from ?? start);
  let span = window === null ? null : spanAtOrAfter(window, t);
  for (let i = 0; i < count; i++) {
    if (window !== null && span !== null) {
      if (t >= span.end) span = spanAtOrAfter(window, t);
      if (t < span.start) t = span.start;
    }
    dueAts.push(Math.min(Math.round(t), cap));
    t += interval;
  }
  return { dueAts, next: Math.round(t) };
}

/** The instant a send's validity ends, counted from when it is due (its schedule, or its acceptance). */
export function validUntilOf(validityMinutes: number | null, dueFrom: number): number | null {
  return validityMinutes === null ? null : dueFrom + validityMinutes * minuteMs;
}

/** What a claim does with a message of a send with controls. */
export type ClaimVerdict = { kind: 'submit' } | { kind: 'expire' } | { kind: 'wait'; until: number };

/**
 * At the claim: a message past its validity ends `expired`; one outside its window waits for
 * the next opening (or its validity's end, whichever comes first); the others go.
 */
export function claimVerdict(window: SendWindow | null, validUntil: number | null, now: number): ClaimVerdict {
  if (validUntil !== null && now >= validUntil) return { kind: 'expire' };
  if (window === null) return { kind: 'submit' };
  const opens = nextOpening(window, now);
  if (opens <= now) return { kind: 'submit' };
  return { kind: 'wait', until: validUntil === null ? opens : Math.min(opens, validUntil) };
}

/** The window as stored (JSON of minutes), and back. */
export function encodeWindow(w: SendWindow): string {
  return JSON.stringify(w);
}

export function decodeWindow(text: string | null): SendWindow | null {
  if (text === null) return null;
  const parsed = JSON.parse(text) as SendWindow;
  return { from: parsed.from, to: parsed.to, days: parsed.days };
}

/** An account's defaults as stored (JSON), and back: null when they ask for nothing. */
export function encodeControls(c: SendControls | null): string | null {
  return c === null || noControls(c) ? null : JSON.stringify(c);
}

export function decodeControls(text: string): SendControls | null {
  const parsed = JSON.parse(text) as Partial<SendControls>;
  const c: SendControls = {
    window: parsed.window ?? null,
    speed: parsed.speed ?? null,
    validityMinutes: parsed.validityMinutes ?? null,
  };
  return noControls(c) ? null : c;
}

/** The request's own controls, each one it left out taken from the account's defaults. */
export function mergeControls(own: SendControls | null, defaults: SendControls | null): SendControls | null {
  const c: SendControls = {
    window: own?.window ?? defaults?.window ?? null,
    speed: own?.speed ?? defaults?.speed ?? null,
    validityMinutes: own?.validityMinutes ?? defaults?.validityMinutes ?? null,
  };
  return noControls(c) ? null : c;
}

/** The three fields as a send request carries them, once valid. */
export interface SendControlBody {
  send_window?: SendWindow | undefined;
  speed?: number | undefined;
  validity_minutes?: number | undefined;
}

/** The controls a request asked for, or nothing when it named none (the send's plan stays as it was). */
export function requestedControls(body: SendControlBody): { controls?: SendControls } {
  if (body.send_window === undefined && body.speed === undefined && body.validity_minutes === undefined) return {};
  return {
    controls: {
      window: body.send_window ?? null,
      speed: body.speed ?? null,
      validityMinutes: body.validity_minutes ?? null,
    },
  };
}

/** An account's defaults as the API and the admin commands show them. */
export interface SendDefaultsView {
  send_window: { from: string; to: string; days: number[] } | null;
  speed: number | null;
  validity_minutes: number | null;
}

export function sendDefaultsView(c: SendControls): SendDefaultsView {
  return {
    send_window: c.window === null ? null : windowView(c.window),
    speed: c.speed,
    validity_minutes: c.validityMinutes,
  };
}

/** The defaults after a change of some of them (null: a default taken away); null when none is left. */
export function changedDefaults(before: SendControls | null, change: Partial<SendControls>): SendControls | null {
  const c: SendControls = {
    window: change.window !== undefined ? change.window : (before?.window ?? null),
    speed: change.speed !== undefined ? change.speed : (before?.speed ?? null),
    validityMinutes: change.validityMinutes !== undefined ? change.validityMinutes : (before?.validityMinutes ?? null),
  };
  return noControls(c) ? null : c;
}
