import type { Store } from '../../../ports/store.js';
import type { CampaignRow, ExportRow } from '../../../ports/panel-queries.js';
import type { CancelOutcome, CancelPreview, ControlOutcome } from '../../../ports/campaign-controls.js';
import type { Result } from '../../../domain/result.js';
import type { CampaignService } from '../../campaign-controls.js';
import type { AccountChanges } from './account-changes.js';

/** A customer's controls of a campaign (docs/api.md, "Campaign controls"), as the API's. */
export type CampaignControl = 'pause' | 'resume' | 'cancel';
export type ControlAnswer = Result<CancelOutcome | ControlOutcome>;

/** What the controls need: the API's service, and the customer's changes with their audit rows. */
export interface CampaignControlDeps {
  campaigns: CampaignService;
  changes: AccountChanges;
}

export const campaignPageSize = 25;
/** Most points of a campaign's clicks chart. */
export const clickChartPoints = 120;

/** A campaign's clicks of its short links: totals, and counts over time. */
export interface CampaignClicks {
  clicks: number;
  clickers: number;
  series: { at: number; clicks: number }[];
}
/** Rows fetched from the store per page of a CSV export: the most an export holds at once. */
export const exportPageSize = 1000;

export interface CampaignPage {
  rows: CampaignRow[];
  /** The `before` value of the next page, or null on the last page. */
  next: number | null;
}

/** Bulk and panel sends: the list, one with its counters, and its rows for export. */
export class CustomerCampaigns {
  constructor(
    private readonly store: Store,
    private readonly accountId: number,
    private readonly controls: CampaignControlDeps | null = null,
    private readonly pageSize = exportPageSize,
  ) {}

  /** What a cancel would stop and give back now; null: no such campaign of the account. */
  async previewCancel(sendId: number): Promise<CancelPreview | null> {
    if (!this.controls || !Number.isSafeInteger(sendId) || sendId <= 0) return null;
    return this.controls.campaigns.previewGroupCancel(this.accountId, sendId);
  }

  /** Pauses, resumes or cancels one of the account's campaigns, with its audit row in the same transaction. */
  async control(action: CampaignControl, sendId: number): Promise<ControlAnswer | null> {
    const controls = this.controls;
    if (!controls || !Number.isSafeInteger(sendId) || sendId <= 0) return null;
    const { accountId } = this;
    return controls.changes.make(
      async (store): Promise<ControlAnswer> => {
        const on = controls.campaigns.on(store.campaigns);
        if (action === 'cancel') return on.cancelGroup(accountId, sendId);
        return action === 'pause' ? on.pauseGroup(accountId, sendId) : on.resumeGroup(accountId, sendId);
      },
      (done) =>
        done.ok
          ? {
              action: `campaign.${action}`,
              object: { type: 'send', id: sendId },
              detail: 'cancelled' in done.value ? { ...done.value } : { state: done.value.state },
            }
          : null,
    );
  }

  async list(before: number | null): Promise<CampaignPage> {
    const rows = await this.store.panel.campaigns(this.accountId, before, campaignPageSize + 1);
    const page = rows.slice(0, campaignPageSize);
    const last = page[page.length - 1];
    return { rows: page, next: rows.length > campaignPageSize && last ? last.id : null };
  }

  async campaign(sendId: number): Promise<CampaignRow | null> {
    if (!Number.isSafeInteger(sendId) || sendId <= 0) return null;
    return this.store.panel.campaign(this.accountId, sendId);
  }

  /** The clicks of a campaign's short links; null when it has none (a send without `short_links`). */
  async clicksOf(c: CampaignRow): Promise<CampaignClicks | null> {
    const links = this.store.links;
    if (!(await links.hasLinks(c.id))) return null;
    const [totals, series] = await Promise.all([links.sendClicks(c.id), links.clickSeries(c.id, clickChartPoints)]);
    return { ...totals, series };
  }

  /** Messages of the send cancelled so far (a controlled campaign's page shows them apart from the pending). */
  async cancelledOf(c: CampaignRow): Promise<number> {
    if (c.control !== 'cancelled') return 0;
    const counts = await this.store.reports.sendCounters(c.id);
    return counts.find((s) => s.state === 'cancelled')?.count ?? 0;
  }

  /**
   * A send's messages in pages of `pageSize`, fetched one page at a time as the consumer
   * pulls (a stream's backpressure reaches the store), so an export of any size holds one
   * page. Null when the send is not the account's.
   */
  async exportRows(sendId: number): Promise<AsyncGenerator<ExportRow[]> | null> {
    const campaign = await this.campaign(sendId);
    if (!campaign) return null;
    const { store, pageSize } = this;
    return (async function* pages(): AsyncGenerator<ExportRow[]> {
      let afterId = 0;
      for (;;) {
        const page = await store.panel.campaignRows(sendId, afterId, pageSize);
        if (page.length === 0) return;
        yield page;
        const last = page[page.length - 1];
        if (!last || page.length < pageSize) return;
        afterId = last.id;
      }
    })();
  }
}
