/**
 * The customer's number blocking list, which panel sends skip: the rules are the API's
 * BlocklistService; this adds search, pages and a report per imported row.
 */
import type { Store } from '../../../ports/store.js';
import type { BlockedRow } from '../../../ports/panel-queries.js';
import { BlocklistService } from '../../blocklist-service.js';
import type { CsvEntry, ImportReport } from './csv-import.js';
import { CustomerPart } from './account-changes.js';

export const blockedPageSize = 100;

export class CustomerBlocklist extends CustomerPart {
  private list(store: Store): BlocklistService {
    return new BlocklistService(store.directory, this.deps.clock);
  }

  /** Entries whose number contains `search`, by number, a page after `after`. */
  blocked(search: string, after: string | null): Promise<BlockedRow[]> {
    return this.deps.store.panel.blocked(this.customer.accountId, search, after, blockedPageSize);
  }

  /** Adds numbers to the blocking list with a report per row. */
  block(entries: readonly CsvEntry[]): Promise<ImportReport> {
    return this.changes.make(
      async (store) => {
        const report: ImportReport = { added: 0, rejected: [] };
        for (const { line, value } of entries) {
          const added = await this.list(store).add(this.customer.accountId, value);
          if (added.ok) report.added += 1;
          else {
            const reason = added.code === 'TS-1140' ? 'exists' : added.code === 'TS-1144' ? 'not-mobile' : 'invalid';
            report.rejected.push({ line, value, reason });
          }
        }
        return report;
      },
      () => ({ action: 'blocklist.add', detail: { entries: entries.length } }),
    );
  }

  /** Takes a number off the account's list; false when it was not listed. */
  unblock(number: string): Promise<boolean> {
    return this.changes.make(
      async (store) => {
        const removed = await this.list(store).remove(this.customer.accountId, number);
        return removed.ok && removed.value;
      },
      (done) => (done ? { action: 'blocklist.remove', detail: { number } } : null),
    );
  }
}
