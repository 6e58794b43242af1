/**
 * The customer's groups and contacts: the rules are those of the API's GroupService; this
 * adds lists, pages, per-row import reports and exports.
 */
import type { Store } from '../../../ports/store.js';
import type { ContactRow, GroupRow } from '../../../ports/panel-queries.js';
import { GroupService } from '../../group-service.js';
import { isPlausibleNumber, normaliseNumber } from '../../../domain/recipients.js';
import { groupName, maxGroupNameLength } from '../../../domain/contacts.js';
import type { CsvEntry, ImportReport } from './csv-import.js';
import { CustomerPart } from './account-changes.js';

export const contactPageSize = 100;
/** Contacts fetched from the store per page of an export: the most an export holds at once. */
const exportPageSize = 1000;

export type NameError = 'required' | 'too-long' | 'duplicate';

function nameError(raw: string): NameError | null {
  const name = groupName(raw);
  if (name === '') return 'required';
  return name.length > maxGroupNameLength ? 'too-long' : null;
}

/** A group id the store can hold: anything else names no group. */
const groupIdOk = (id: number): boolean => Number.isSafeInteger(id) && id > 0;

export class CustomerGroups extends CustomerPart {
  private get accountId(): number {
    return this.customer.accountId;
  }

  private groups(store: Store): GroupService {
    return new GroupService(store.directory, this.deps.clock, store.templates);
  }

  list(): Promise<GroupRow[]> {
    return this.deps.store.panel.groups(this.accountId);
  }

  /** null: not the account's group. */
  async group(groupId: number, store: Store = this.deps.store): Promise<GroupRow | null> {
    return groupIdOk(groupId) ? store.panel.group(this.accountId, groupId) : null;
  }

  async create(raw: string): Promise<{ ok: true; id: number } | { ok: false; error: NameError }> {
    const bad = nameError(raw);
    if (bad) return { ok: false, error: bad };
    const name = groupName(raw);
    const created = await this.changes.make(
      (store) => this.groups(store).create(this.accountId, name),
      (done) =>
        done.ok
          ? { action: 'group.create', object: { type: 'group', id: done.value.id }, detail: { name: raw } }
          : null,
    );
    return created.ok ? { ok: true, id: created.value.id } : { ok: false, error: 'duplicate' };
  }

  /** null: not the account's group. */
  async rename(groupId: number, raw: string): Promise<{ ok: true } | { ok: false; error: NameError } | null> {
    if ((await this.group(groupId)) === null) return null;
    const bad = nameError(raw);
    if (bad) return { ok: false, error: bad };
    const renamed = await this.changes.make(
      (store) => this.groups(store).rename(this.accountId, groupId, groupName(raw)),
      (done) =>
        done.ok ? { action: 'group.rename', object: { type: 'group', id: groupId }, detail: { name: raw } } : null,
    );
    if (renamed.ok) return { ok: true };
    return renamed.variant === 'not-found' ? null : { ok: false, error: 'duplicate' };
  }

  /** false: not the account's group. */
  async remove(groupId: number): Promise<boolean> {
    if (!groupIdOk(groupId)) return false;
    const removed = await this.changes.make(
      async (store) =>
        (await this.group(groupId, store)) !== null && (await this.groups(store).remove(this.accountId, groupId)).ok,
      (done) => (done ? { action: 'group.delete', object: { type: 'group', id: groupId } } : null),
    );
    return removed;
  }

  contacts(groupId: number, after: string | null): Promise<ContactRow[] | null> {
    if (!groupIdOk(groupId)) return Promise.resolve(null);
    return this.deps.store.panel.contacts(this.accountId, groupId, after, contactPageSize);
  }

  /** false: not in the account's group. */
  removeContact(groupId: number, number: string): Promise<boolean> {
    if (!groupIdOk(groupId)) return Promise.resolve(false);
    return this.changes.make(
      (store) => store.panel.removeContact(this.accountId, groupId, normaliseNumber(number)),
      (done) =>
        done ? { action: 'contact.remove', object: { type: 'group', id: groupId }, detail: { number } } : null,
    );
  }

  /** Adds typed or imported numbers to the group with a report per row; null: not the account's group. */
  async addContacts(groupId: number, entries: readonly CsvEntry[]): Promise<ImportReport | null> {
    if (!groupIdOk(groupId)) return null;
    return this.changes.make(
      (store) => this.addIn(store, groupId, entries),
      (report) =>
        report === null
          ? null
          : { action: 'contact.add', object: { type: 'group', id: groupId }, detail: { entries: entries.length } },
    );
  }

  private async addIn(store: Store, groupId: number, entries: readonly CsvEntry[]): Promise<ImportReport | null> {
    const existing = await store.panel.groupNumbers(this.accountId, groupId);
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
      const added = await this.groups(store).addContacts(this.accountId, groupId, [...fresh]);
      if (!added.ok) return null;
      report.added = added.value.total_added;
      if (names.length > 0) await store.panel.nameContacts(this.accountId, groupId, names);
    }
    return report;
  }

  /** Every number of the group in pages, for an export; null: not the account's group. */
  async exportContacts(groupId: number): Promise<AsyncGenerator<ContactRow[]> | null> {
    if ((await this.group(groupId)) === null) return null;
    const { store } = this.deps;
    const { accountId } = this;
    return (async function* pages(): AsyncGenerator<ContactRow[]> {
      let after: string | null = null;
      for (;;) {
        const page: ContactRow[] | null = await store.panel.contacts(accountId, groupId, after, exportPageSize);
        if (!page || page.length === 0) return;
        yield page;
        after = page[page.length - 1]?.number ?? null;
        if (page.length < exportPageSize) return;
      }
    })();
  }
}
