import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { CampaignRow, Counts, LogRow } from '../../../ports/panel-queries.js';
import { dayDate, istanbulDay } from '../../../domain/istanbul-time.js';
import { localParts } from '../../../domain/istanbul-time.js';

export interface Tally extends Counts {
  pending: number;
}

/** The overview chart: one point per day of the last 30, oldest first (uPlot's columns). */
export interface DailySeries {
  /** `YYYY-MM-DD`, Istanbul. */
  dates: string[];
  /** Seconds since the epoch of each day's start, uPlot's x values. */
  x: number[];
  messages: number[];
  /** Delivered share of the day's messages in percent, or null for a day without messages. */
  deliveryRate: (number | null)[];
}

export interface Overview {
  balanceMain: number;
  balanceInternational: number;
  today: Tally;
  month: Tally;
  chart: DailySeries;
  latestSends: CampaignRow[];
  latest: LogRow[];
}

export const chartDays = 30;
const latestCount = 10;

function tally(rows: readonly Counts[]): Tally {
  const t = { messages: 0, sms: 0, delivered: 0, failed: 0 };
  for (const r of rows) {
    t.messages += r.messages;
    t.sms += r.sms;
    t.delivered += r.delivered;
    t.failed += r.failed;
  }
  return { ...t, pending: t.messages - t.delivered - t.failed };
}

/** The overview page: balances, today's and this month's counts, 30 days of sends, the latest messages. */
export class CustomerOverview {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly accountId: number,
  ) {}

  async overview(): Promise<Overview | null> {
    const { accountId } = this;
    const account = await this.store.accounts.getAccount(accountId);
    if (!account) return null;
    const now = this.clock.now();
    const today = istanbulDay(now);
    const p = localParts(now);
    const monthStart = today - (p.day - 1);
    const from = Math.min(monthStart, today - (chartDays - 1));
    const [rows, latestSends, latest] = await Promise.all([
      this.store.panel.dailyCounts(accountId, from, today),
      this.store.panel.latestSends(accountId, latestCount),
      this.store.panel.messageLog(accountId, {}, null, latestCount),
    ]);
    return {
      balanceMain: account.balanceMain,
      balanceInternational: account.balanceInternational,
      today: tally(rows.filter((r) => r.day === today)),
      month: tally(rows.filter((r) => r.day >= monthStart)),
      chart: dailySeries(rows, today),
      latestSends,
      latest,
    };
  }

  async chart(): Promise<DailySeries> {
    const today = istanbulDay(this.clock.now());
    return dailySeries(await this.store.panel.dailyCounts(this.accountId, today - (chartDays - 1), today), today);
  }
}

export function dailySeries(rows: readonly (Counts & { day: number })[], today: number): DailySeries {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const series: DailySeries = { dates: [], x: [], messages: [], deliveryRate: [] };
  for (let day = today - (chartDays - 1); day <= today; day++) {
    const r = byDay.get(day);
    series.dates.push(dayDate(day));
    series.x.push(day * 86_400);
    series.messages.push(r?.messages ?? 0);
    series.deliveryRate.push(r && r.messages > 0 ? Math.round((1000 * r.delivered) / r.messages) / 10 : null);
  }
  return series;
}
