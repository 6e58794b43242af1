/**
 * Calendar rules of the service are all in Europe/Istanbul, computed through Intl so that
 * a future change of the zone's offset is picked up from the runtime's tz data.
 */
const zone = 'Europe/Istanbul';

const partsFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: zone,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function localParts(epochMs: number): LocalParts {
  const parts: Record<string, number> = {};
  for (const p of partsFormat.formatToParts(new Date(epochMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `YYYY-MM-DD` in Istanbul. */
export function localDate(epochMs: number): string {
  const p = localParts(epochMs);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** `HH:MM:SS` in Istanbul. */
export function localTime(epochMs: number): string {
  const p = localParts(epochMs);
  return `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** `YYYY-MM-DD HH:MM:SS` in Istanbul, the format of dates and times in responses. */
export function localDateTime(epochMs: number): string {
  return `${localDate(epochMs)} ${localTime(epochMs)}`;
}

/** Bucket names of the request-limit windows: the Istanbul hour, day and month. */
export function hourBucket(epochMs: number): string {
  const p = localParts(epochMs);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}`;
}
export function dayBucket(epochMs: number): string {
  return localDate(epochMs);
}
export function monthBucket(epochMs: number): string {
  const p = localParts(epochMs);
  return `${pad(p.year, 4)}-${pad(p.month)}`;
}

/** Offset of Istanbul from UTC at an instant, in milliseconds. */
function offsetAt(epochMs: number): number {
  const p = localParts(epochMs);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant at which an Istanbul wall-clock time occurs, or null when the fields do not
 * form a real date and time (for example 2026-02-30 or 25:99).
 */
export function fromLocal(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | null {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const naive = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(naive);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  // Two passes settle the offset even next to a change of offset.
  let guess = naive - offsetAt(naive);
  guess = naive - offsetAt(guess);
  return guess;
}

/** Parses `YYYY-MM-DD` strictly; null when it is not a real date. */
export function parseDate(text: string): { year: number; month: number; day: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  return fromLocal(year, month, day, 0, 0, 0) === null ? null : { year, month, day };
}

/** The first instant after the end of an Istanbul calendar day (`YYYY-MM-DD`). */
export function endOfLocalDay(date: string): number | null {
  const d = parseDate(date);
  if (!d) return null;
  const start = fromLocal(d.year, d.month, d.day, 0, 0, 0);
  if (start === null) return null;
  // Next local midnight: step a little over a day and read the date back.
  const next = localParts(start + 26 * 3600_000);
  return fromLocal(next.year, next.month, next.day, 0, 0, 0);
}

/**
 * Istanbul day numbers: days since 1970-01-01 in Istanbul time, the key of the panel's
 * rollups. They follow the zone's offset like every other calendar rule here; the offset
 * is read once an hour (offsets change only on the hour), so a day number costs a
 * division on the write path.
 */
export const dayMs = 86_400_000;
const hourMs = 3_600_000;
let offsetHour = Number.NaN;
let offsetOfHour = 0;

export function istanbulDay(epochMs: number): number {
  const hour = Math.floor(epochMs / hourMs);
  if (hour !== offsetHour) {
    offsetOfHour = offsetAt(hour * hourMs);
    offsetHour = hour;
  }
  return Math.floor((epochMs + offsetOfHour) / dayMs);
}

/** `YYYY-MM-DD` of a day number. */
export function dayDate(day: number): string {
  return new Date(day * dayMs).toISOString().slice(0, 10);
}

/** The day number of a `YYYY-MM-DD` date, or null when it is no date. */
export function dayOfDate(date: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dayDate(t / dayMs) === date ? t / dayMs : null;
}

/** The first instant of a day number: its Istanbul midnight. */
export function dayStart(day: number): number {
  const d = new Date(day * dayMs);
  return fromLocal(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), 0, 0, 0) ?? day * dayMs;
}
