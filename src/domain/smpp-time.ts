/**
 * SMPP 3.4 time fields (section 7.1.1), as `schedule_delivery_time` and `validity_period`
 * carry them: 16 characters, or empty (NULL) for "none".
 *
 * - absolute `YYMMDDhhmmsstnnp`: a local date and time with tenths of a second (`t`) and the
 *   local time's distance from UTC in quarter hours (`nn`, 00..48), `p` `+` (local time ahead
 *   of UTC) or `-` (behind);
 * - relative `YYMMDDhhmmss000R`: years, months, days, hours, minutes and seconds from now.
 *
 * The `smpp` package reads these fields itself, as a Date made on the process clock
 * (src/smpp/smpp-wire.ts turns that off): here they are read on the clock we are given.
 */

export type SmppTime =
  /** The field is empty: no time asked for. */
  { kind: 'none' } | { kind: 'at'; at: number } | { kind: 'malformed'; reason: string };

const absolutePattern = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d)(\d{2})([+-])$/;
const relativePattern = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})000R$/;

const minuteMs = 60_000;

/**
 * The year of a two-digit `YY`: of the century that puts it nearest the year of `now` (a
 * window of 50 years either side), so `27` is 2027 now and `99` 1999 (a time long past).
 */
function fullYear(yy: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  let year = current - (current % 100) + yy;
  if (year > current + 50) year -= 100;
  else if (year < current - 50) year += 100;
  return year;
}

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

function absolute(m: RegExpExecArray, now: number): SmppTime {
  // The pattern matched: every group is there.
  const [yy = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, tenths = 0, quarters = 0] = m
    .slice(1, 9)
    .map(Number);
  const year = fullYear(yy, now);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1))
    return { kind: 'malformed', reason: 'no such date' };
  if (hour > 23 || minute > 59 || second > 59) return { kind: 'malformed', reason: 'no such time of day' };
  if (quarters > 48) return { kind: 'malformed', reason: 'UTC offset above 48 quarter hours' };
  const local = Date.UTC(year, month - 1, day, hour, minute, second) + tenths * 100;
  // Local time ahead of UTC ('+') is UTC plus the offset: UTC is the local time minus it.
  const offset = quarters * 15 * minuteMs * (m[9] === '+' ? 1 : -1);
  return { kind: 'at', at: local - offset };
}

/**
 * Years and months are added on the calendar (UTC), the day kept or, past the end of the
 * month reached, the month's last day (31 January and one month: 28 or 29 February); days,
 * hours, minutes and seconds as lengths of time. Each field may exceed its calendar range
 * (`000000000090000R`: 90 minutes).
 */
function relative(m: RegExpExecArray, now: number): SmppTime {
  const [years = 0, months = 0, days = 0, hours = 0, minutes = 0, seconds = 0] = m.slice(1, 7).map(Number);
  const d = new Date(now);
  const monthIndex = d.getUTCMonth() + months;
  const year = d.getUTCFullYear() + years + Math.floor(monthIndex / 12);
  const month0 = monthIndex % 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month0));
  const moved = Date.UTC(
    year,
    month0,
    day,
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
  return { kind: 'at', at: moved + ((days * 24 + hours) * 60 + minutes) * minuteMs + seconds * 1000 };
}

/** Reads an SMPP 3.4 time field; a relative one counts from `now`. */
export function parseSmppTime(text: string, now: number): SmppTime {
  if (text === '') return { kind: 'none' };
  if (text.length !== 16) return { kind: 'malformed', reason: 'not 16 characters' };
  const rel = relativePattern.exec(text);
  if (rel) return relative(rel, now);
  const abs = absolutePattern.exec(text);
  if (abs) return absolute(abs, now);
  return { kind: 'malformed', reason: 'neither YYMMDDhhmmsstnnp nor YYMMDDhhmmss000R' };
}

/**
 * How far in the past a `schedule_delivery_time` may be and still be taken, as "send now":
 * a client's clock a few seconds off, or a submit that waited in the client's window, is
 * not refused for it. Further back, the time is a mistake the client should hear of
 * (ESME_RINVSCHED, as the API's TS-1072).
 */
export const smppScheduleGraceMs = 10_000;

/**
 * A `schedule_delivery_time` as a submit_sm's schedule: null for none (or a time within the
 * grace: due now), the instant otherwise; `past` for a time before the grace, `malformed`
 * for a field that is no SMPP time. The API still checks the instant (strictly after now).
 */
export function smppSchedule(
  text: string,
  now: number,
): { ok: true; at: number | null } | { ok: false; why: 'malformed' | 'past'; reason: string } {
  const t = parseSmppTime(text, now);
  if (t.kind === 'none') return { ok: true, at: null };
  if (t.kind === 'malformed') return { ok: false, why: 'malformed', reason: t.reason };
  if (t.at < now - smppScheduleGraceMs)
    return { ok: false, why: 'past', reason: `${Math.round((now - t.at) / 1000)} s in the past` };
  return { ok: true, at: t.at <= now ? null : t.at };
}

/** An instant as an absolute SMPP time (`YYMMDDhhmmsstnnp`), written in UTC (offset `00+`). */
export function smppAbsoluteTime(at: number): string {
  const d = new Date(at);
  const two = (n: number): string => String(n).padStart(2, '0');
  return (
    two(d.getUTCFullYear() % 100) +
    two(d.getUTCMonth() + 1) +
    two(d.getUTCDate()) +
    two(d.getUTCHours()) +
    two(d.getUTCMinutes()) +
    two(d.getUTCSeconds()) +
    String(Math.floor(d.getUTCMilliseconds() / 100)) +
    '00+'
  );
}
