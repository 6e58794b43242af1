import type { Clock } from '../ports/clock.js';
import type { DirectoryStore, Group } from '../ports/directory-store.js';
import type { TemplateStore } from '../ports/template-store.js';
import { normaliseNumber, isPlausibleNumber } from '../domain/recipients.js';
import { contactFieldsOf } from '../domain/templates.js';
import { contactList } from '../domain/contacts.js';
import { localDateTime } from '../domain/istanbul-time.js';
import { fail, ok } from '../domain/result.js';
import type { Failure, Result } from '../domain/result.js';

/** A failed result answered with HTTP 200, as the spec allows for these endpoints. */
const duplicateName = (): Failure =>
  fail('TS-1033', { variant: 'duplicate', message: 'A group with this name already exists' });
const groupNotFound = (): Failure =>
  fail('TS-1029', { variant: 'not-found', message: 'No group of this account has this group_id' });

/**
 * Group ids come from a 32-bit serial column (PostgreSQL's `integer`): a larger id names no
 * group, and is answered as one the account does not have without reaching the store (a
 * query comparing that column with it fails on PostgreSQL).
 */
const maxGroupId = 2 ** 31 - 1;

export interface GroupView {
  id: number;
  name: string;
  created_at: string;
}

export interface GroupListItem {
  id: number;
  name: string;
  date: string;
}

export interface ContactsAdded {
  group_id: number;
  total_sent: number;
  total_added: number;
  total_failed: number;
  mobile: string;
}

function groupView(g: Group): GroupView {
  return { id: g.id, name: g.name, created_at: localDateTime(g.createdAt) };
}

/** Contact groups and their numbers, per account. Names are unique per account. */
export class GroupService {
  constructor(
    private readonly directory: DirectoryStore,
    private readonly clock: Clock,
    private readonly fields: Pick<TemplateStore, 'setContactFields'>,
  ) {}

  async create(accountId: number, name: string): Promise<Result<GroupView>> {
    const created = await this.directory.createGroup(accountId, name, this.clock.now());
    return created === 'duplicate' ? duplicateName() : ok(groupView(created));
  }

  async rename(accountId: number, groupId: number, name: string): Promise<Result<GroupView>> {
    if (groupId > maxGroupId) return groupNotFound();
    const renamed = await this.directory.renameGroup(accountId, groupId, name);
    if (renamed === 'duplicate') return duplicateName();
    if (renamed === 'not-found') return groupNotFound();
    return ok(groupView(renamed));
  }

  async remove(accountId: number, groupId: number): Promise<Result<true>> {
    if (groupId > maxGroupId) return groupNotFound();
    return (await this.directory.deleteGroup(accountId, groupId)) ? ok(true) : groupNotFound();
  }

  async list(accountId: number): Promise<GroupListItem[]> {
    const groups = await this.directory.listGroups(accountId);
    return groups.map((g) => ({ id: g.id, name: g.name, date: localDateTime(g.createdAt) }));
  }

  /**
   * Adds the valid numbers among `entries` to the group. total_sent counts the entries,
   * total_failed the invalid ones, total_added the numbers new to the group; the rest were
   * repeats or already in the group. `mobile` lists the valid numbers as stored.
   */
  async addContacts(
    accountId: number,
    groupId: number,
    entries: readonly string[],
    fielded: readonly FieldedContact[] = [],
  ): Promise<Result<ContactsAdded>> {
    if (groupId > maxGroupId) return groupNotFound();
    const all = fielded.length === 0 ? entries : [...entries, ...fielded.map((c) => c.mobile)];
    const { numbers, invalid } = contactList(all);
    const now = this.clock.now();
    const added = await this.directory.addContacts(accountId, groupId, numbers, now);
    if (added === null) return groupNotFound();
    if (fielded.length > 0) await this.fields.setContactFields(accountId, fieldsByNumber(fielded), now);
    return ok({
      group_id: groupId,
      total_sent: all.length,
      total_added: added,
      total_failed: invalid,
      mobile: numbers.join(','),
    });
  }
}

/** A `contacts` entry of /contacts/add: a number and its fields (validated). */
export interface FieldedContact {
  mobile: string;
  fields?: Readonly<Record<string, unknown>>;
}

/** The fields of each valid number, the last entry of a number winning; entries without fields set none. */
function fieldsByNumber(
  fielded: readonly FieldedContact[],
): { number: string; fields: Readonly<Record<string, string>> }[] {
  const byNumber = new Map<string, Record<string, string>>();
  for (const c of fielded) {
    const number = normaliseNumber(c.mobile);
    if (c.fields !== undefined && isPlausibleNumber(number)) byNumber.set(number, contactFieldsOf(c.fields));
  }
  return [...byNumber].map(([number, fields]) => ({ number, fields }));
}
