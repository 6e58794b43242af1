/**
 * Istanbul day numbers: days since 1970-01-01 in Istanbul time. Istanbul has kept UTC+3 all
 * year since 2016, so a day number is plain integer arithmetic, the same in TypeScript and
 * in SQL (the panel's rollups, migration 0015, key messages by it).
 */
export const istanbulOffsetMs = 3 * 3_600_000;
export const dayMs = 86_400_000;

export function istanbulDay(epochMs: number): number {
  return Math.floor((epochMs + istanbulOffsetMs) / dayMs);
}

/** `YYYY-MM-DD` of a day number. */
export function dayDate(day: number): string {
  return new Date(day * dayMs).toISOString().slice(0, 10);
}

/** The first instant of a day number. */
export function dayStart(day: number): number {
  return day * dayMs - istanbulOffsetMs;
}

/** The day number of a `YYYY-MM-DD` date, or null when it is no date. */
export function dayOfDate(date: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dayDate(t / dayMs) === date ? t / dayMs : null;
}
