import { fromLocal, localDate, localTime, parseDate } from './istanbul-time.js';
import { fail, ok, type Result } from './result.js';

export interface ScheduleFields {
  /** `scheduled_date`, `YYYY-MM-DD`. */
  date: string | undefined;
  /** `scheduled_time`, `HH:MM` or `HH:MM:ss`, Europe/Istanbul. */
  time: string | undefined;
}

/** /sms/send: a non-empty `scheduled_date` makes the send scheduled. */
export function scheduleRequested(date: string | undefined): boolean {
  return date !== undefined && date !== '';
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
const timePattern = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The instant of a scheduled send, for a request that asks for one. Codes, checked in this
 * order:
 * - TS-1070: date missing or not `YYYY-MM-DD`, or time missing (undefined or empty string);
 * - TS-1071: time not `HH:MM` or `HH:MM:ss` (two digits each, no surrounding spaces);
 * - TS-1072: no such date or time in Istanbul (2026-02-30, 25:99), or not strictly after
 *   `nowMs`: a send scheduled for the current second is already due, so it is refused.
 */
export function parseSchedule(fields: ScheduleFields, nowMs: number): Result<number> {
  const { date, time } = fields;
  if (date === undefined || !datePattern.test(date)) return fail('TS-1070');
  if (time === undefined || time === '') return fail('TS-1070');
  const t = timePattern.exec(time);
  if (!t) return fail('TS-1071');
  const d = parseDate(date);
  if (!d) return fail('TS-1072');
  const at = fromLocal(d.year, d.month, d.day, Number(t[1]), Number(t[2]), Number(t[3] ?? '0'));
  if (at === null || at <= nowMs) return fail('TS-1072');
  return ok(at);
}

/**
 * The /sms/send fields that schedule a send at an instant (the inverse of parseSchedule), in
 * Istanbul time to the second: rounded up, so the send is never due before the instant.
 */
export function scheduleFieldsAt(at: number): { scheduled_date: string; scheduled_time: string } {
  const second = Math.ceil(at / 1000) * 1000;
  return { scheduled_date: localDate(second), scheduled_time: localTime(second) };
}
