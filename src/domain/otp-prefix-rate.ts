/**
 * The OTP guard's rise rule: a key's codes to one destination prefix in a minute, judged
 * against that prefix's own history for the key. SMS pumping shows as a sudden many-fold rise
 * of codes to a prefix the key never sent much to; a bank or a delivery app sends thousands
 * a minute to one operator's numbers, steadily. So a prefix may always get `prefixRiseMin`
 * codes in a minute, and above that at most `prefixRise` times its usual rate: its codes per
 * minute averaged over about the last hour (docs/decisions.md, "The OTP guard's defaults").
 *
 * The history is one row per key and prefix (the minute counted, its codes, and the
 * baseline of the minutes before), moved here: each minute gone by joins the baseline with
 * the weight `prefixRateDecay`, and the baseline's weight falls by as much, so a minute an
 * hour old weighs about a third of the last one. Pure: the row and the time come in.
 */

/** Each minute's share of the baseline: an average over about the last hour (60 minutes). */
export const prefixRateDecay = 1 / 60;

/** A key's codes to one prefix: those of `minute` (unix minutes), and the baseline of the minutes before. */
export interface PrefixRate {
  minute: number;
  codes: number;
  /** Codes per minute, averaged over about the hour before `minute`. */
  baseline: number;
}

/** The unix minute of an instant. */
export function minuteOf(now: number): number {
  return Math.floor(now / 60_000);
}

/** Seconds until the minute of `now` ends (1 to 60): when a new minute is judged afresh. */
export function secondsLeftInMinute(now: number): number {
  return Math.max(1, Math.ceil((60_000 - (((now % 60_000) + 60_000) % 60_000)) / 1000));
}

/**
 * The rate as of `minute`: the stored minute and the empty minutes since folded into the
 * baseline, and no codes yet in `minute`. A row of a later minute (a process whose clock is
 * ahead wrote it) is taken as it is: its codes count in this minute.
 */
export function rateAt(rate: PrefixRate | null, minute: number): PrefixRate {
  if (rate === null) return { minute, codes: 0, baseline: 0 };
  if (minute <= rate.minute) return rate;
  const kept = 1 - prefixRateDecay;
  const baseline = (rate.baseline * kept + rate.codes * prefixRateDecay) * kept ** (minute - rate.minute - 1);
  // Past a few days of silence the baseline is nothing: no denormal crumbs in the row.
  return { minute, codes: 0, baseline: baseline < 1e-9 ? 0 : baseline };
}

/** The codes a prefix may get in a minute under the rise rule: its floor, or `rise` times its baseline. */
export function riseCeiling(rise: number, floor: number, baseline: number): number {
  return Math.max(floor, Math.floor(rise * baseline));
}
