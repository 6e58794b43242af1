import type { Store } from '../../../ports/store.js';
import type { CampaignRow, ExportRow } from '../../../ports/panel-queries.js';

export const campaignPageSize = 25;
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
    private readonly pageSize = exportPageSize,
  ) {}

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
