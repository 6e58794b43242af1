import type { Store } from '../../ports/store.js';
import type { BlockedRow, ContactRow, GroupRow } from '../../ports/panel-queries.js';
import type { GroupService } from '../group-service.js';
import type { BlocklistService } from '../blocklist-service.js';
import { isPlausibleNumber, normaliseNumber } from '../../domain/recipients.js';
import { groupName, maxGroupNameLength } from '../../domain/contacts.js';
import type { CsvEntry } from './panel-csv.js';

export const contactPageSize = 100;
export const blockedPageSize = 100;

/** What happened to one row of an import. */
export type RowOutcome = 'added' | 'exists' | 'repeated' | 'invalid' | 'not-mobile';

export interface ImportReport {
  added: number;
  /** Rows not added, with why, in file order. */
  rejected: { line: number; value: string; reason: Exclude<RowOutcome, 'added'> }[];
}

export type NameError = 'required' | 'too-long' | 'duplicate';

/**
 * Groups, contacts and the blocking list for the panel: the rules are those of the API's
 * services (GroupService, BlocklistService); this adds lists, pages and per-row reports.
 */
export class PanelDirectoryService {
  constructor(
    private readonly store: Store,
    private readonly groups: GroupService,
    private readonly blocklist: BlocklistService,
  ) {}

  listGroups(accountId: number): Promise<GroupRow[]> {
    return this.store.panel.groups(accountId);
  }

  group(accountId: number, groupId: number): Promise<GroupRow | null> {
    if (!Number.isSafeInteger(groupId) || groupId <= 0) return Promise.resolve(null);
    return this.store.panel.group(accountId, groupId);
  }

  private static nameError(raw: string): NameError | null {
    const name = groupName(raw);
    if (name === '') return 'required';
    return name.length > maxGroupNameLength ? 'too-long' : null;
  }

  async createGroup(
    accountId: number,
    raw: string,
  ): Promise<{ ok: true; id: number } | { ok: false; error: NameError }> {
    const bad = PanelDirectoryService.nameError(raw);
    if (bad) return { ok: false, error: bad };
    const created = await this.groups.create(accountId, groupName(raw));
    return created.ok ? { ok: true, id: created.value.id } : { ok: false, error: 'duplicate' };
  }

  /** null: not the account's group. */
  async renameGroup(
    accountId: number,
    groupId: number,
    raw: string,
  ): Promise<{ ok: true } | { ok: false; error: NameError } | null> {
    if ((await this.group(accountId, groupId)) === null) return null;
    const bad = PanelDirectoryService.nameError(raw);
    if (bad) return { ok: false, error: bad };
    const renamed = await this.groups.rename(accountId, groupId, groupName(raw));
    if (renamed.ok) return { ok: true };
    return renamed.variant === 'not-found' ? null : { ok: false, error: 'duplicate' };
  }

  async deleteGroup(accountId: number, groupId: number): Promise<boolean> {
    if ((await this.group(accountId, groupId)) === null) return false;
    return (await this.groups.remove(accountId, groupId)).ok;
  }

  contacts(accountId: number, groupId: number, after: string | null): Promise<ContactRow[] | null> {
    if (!Number.isSafeInteger(groupId) || groupId <= 0) return Promise.resolve(null);
    return this.store.panel.contacts(accountId, groupId, after, contactPageSize);
  }

  removeContact(accountId: number, groupId: number, number: string): Promise<boolean> {
    if (!Number.isSafeInteger(groupId) || groupId <= 0) return Promise.resolve(false);
    return this.store.panel.removeContact(accountId, groupId, normaliseNumber(number));
  }

  /** Adds typed or imported numbers to the group with a report per row; null: not the account's group. */
  async addContacts(accountId: number, groupId: number, entries: readonly CsvEntry[]): Promise<ImportReport | null> {
    if (!Number.isSafeInteger(groupId) || groupId <= 0) return null;
    const existing = await this.store.panel.groupNumbers(accountId, groupId);
    if (existing === null) return null;
    const known = new Set(existing);
    const fresh = new Set<string>();
    const names: { number: string; name: string }[] = [];
    const report: ImportReport = { added: 0, rejected: [] };
    for (const { line, value, name } of entries) {
      const n = normaliseNumber(value);
      if (!isPlausibleNumber(n)) report.rejected.push({ line, value, reason: 'invalid' });
      else if (known.has(n)) report.rejected.push({ line, value, reason: 'exists' });
      else if (fresh.has(n)) report.rejected.push({ line, value, reason: 'repeated' });
      else {
        fresh.add(n);
        if (name !== undefined) names.push({ number: n, name });
      }
    }
    if (fresh.size > 0) {
      const added = await this.groups.addContacts(accountId, groupId, [...fresh]);
      if (!added.ok) return null;
      report.added = added.value.total_added;
      if (names.length > 0) await this.store.panel.nameContacts(accountId, groupId, names);
    }
    return report;
  }

  /** Every number of the group in pages, for an export; null: not the account's group. */
  async exportContacts(accountId: number, groupId: number): Promise<AsyncGenerator<ContactRow[]> | null> {
    if ((await this.group(accountId, groupId)) === null) return null;
    const { store } = this;
    return (async function* pages(): AsyncGenerator<ContactRow[]> {
      let after: string | null = null;
      for (;;) {
        const page: ContactRow[] | null = await store.panel.contacts(accountId, groupId, after, 1000);
        if (!page || page.length === 0) return;
        yield page;
        after = page[page.length - 1]?.number ?? null;
        if (page.length < 1000) return;
      }
    })();
  }

  blocked(accountId: number, search: string, after: string | null): Promise<BlockedRow[]> {
    return this.store.panel.blocked(accountId, search, after, blockedPageSize);
  }

  /** Adds numbers to the blocking list with a report per row. */
  async block(accountId: number, entries: readonly CsvEntry[]): Promise<ImportReport> {
    const report: ImportReport = { added: 0, rejected: [] };
    for (const { line, value } of entries) {
      const added = await this.blocklist.add(accountId, value);
      if (added.ok) report.added += 1;
      else
        report.rejected.push({
          line,
          value,
          reason: added.code === 'TS-1140' ? 'exists' : added.code === 'TS-1144' ? 'not-mobile' : 'invalid',
        });
    }
    return report;
  }

  /** Removes a number from the account's list; false when it was not listed. */
  async unblock(accountId: number, number: string): Promise<boolean> {
    const removed = await this.blocklist.remove(accountId, number);
    return removed.ok && removed.value;
  }
}
