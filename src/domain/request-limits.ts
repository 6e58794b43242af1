/**
 * A key's request limits: hourly, daily and monthly counts in calendar windows (Istanbul
 * time), each window named by its bucket (`2026-11-24T13`, `2026-11-24`, `2026-11`).
 */
export interface UsageWindows {
  hour: string;
  day: string;
  month: string;
}

/** The limit a request ran into. */
export type LimitHit = 'hourly' | 'daily' | 'monthly';

/** A key's limits; 0: no limit. */
export interface RequestLimits {
  hourly: number;
  daily: number;
  monthly: number;
}

/** A key's counts in the windows it last counted in. */
export interface Usage {
  hour: string;
  hourCount: number;
  day: string;
  dayCount: number;
  month: string;
  monthCount: number;
}

/** One request to count against its key's limits, in its windows. */
export interface UsageRequest {
  keyId: number;
  limits: RequestLimits;
  windows: UsageWindows;
}

/**
 * Counts one request into a key's usage unless a window with a limit is full (a window
 * whose bucket has moved on starts again at zero). When several are full, the longest
 * window is named: its wait is the one the caller must honour.
 */
export function countOne(usage: Usage, limits: RequestLimits, windows: UsageWindows): LimitHit | null {
  if (usage.hour !== windows.hour) Object.assign(usage, { hour: windows.hour, hourCount: 0 });
  if (usage.day !== windows.day) Object.assign(usage, { day: windows.day, dayCount: 0 });
  if (usage.month !== windows.month) Object.assign(usage, { month: windows.month, monthCount: 0 });
  if (limits.monthly > 0 && usage.monthCount >= limits.monthly) return 'monthly';
  if (limits.daily > 0 && usage.dayCount >= limits.daily) return 'daily';
  if (limits.hourly > 0 && usage.hourCount >= limits.hourly) return 'hourly';
  usage.hourCount += 1;
  usage.dayCount += 1;
  usage.monthCount += 1;
  return null;
}
