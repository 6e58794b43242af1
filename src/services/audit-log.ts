/**
 * The audit log's rules: who may appear as the actor, what a row may carry, how a change and
 * its row are written together, and the search the console pages run. A row never carries a
 * secret: particulars are a short list of plain values under names that say what they are,
 * and any name that could hold a secret (password, secret, token, key, hash) is dropped
 * before the row is written, as is any value that looks like an API key. Callers pass the
 * facts; this file decides.
 */
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { AuditEntry, AuditEntryInput, AuditSearch } from '../ports/audit-store.js';

/** A signed-in panel user (customer or provider), an admin command, or an API key (a reseller's). */
export type Actor = UserActor | { kind: 'cli'; osUser: string | null } | KeyActor;

/** An API key acting on the API (a reseller's key on /subaccounts/...): written as `key:<id>`. */
export interface KeyActor {
  kind: 'key';
  keyId: number;
  address: string | null;
}

/** A signed-in panel user, from the request's address. */
export interface UserActor {
  kind: 'user';
  userId: number;
  email: string;
  address: string | null;
}

export type DetailValue = string | number | boolean | null;

/** What was done: the action, the account and object it concerned, plain particulars. */
export interface AuditFact {
  action: string;
  accountId?: number | null;
  object?: { type: string; id: number | string };
  detail?: Record<string, DetailValue | undefined>;
}

/** Names of particulars never written, whatever their value. */
const secretName = /pass|secret|token|key|hash|cookie|csrf|auth/i;
/** Values never written: an API key, or anything that looks like a bearer credential. */
const secretValue = /hb_(live|test)_|^[A-Za-z0-9_-]{32,}$/;
const maxValue = 200;

/** The particulars a row may carry, as JSON; null when none is left. */
export function safeDetail(detail: AuditFact['detail']): string | null {
  if (detail === undefined) return null;
  const kept: Record<string, DetailValue> = {};
  for (const [name, value] of Object.entries(detail)) {
    if (value === undefined || secretName.test(name)) continue;
    if (typeof value === 'string') {
      if (secretValue.test(value)) continue;
      kept[name] = value.length > maxValue ? `${value.slice(0, maxValue)}…` : value;
    } else kept[name] = value;
  }
  return Object.keys(kept).length === 0 ? null : JSON.stringify(kept);
}

export function auditRow(actor: Actor, fact: AuditFact, now: number): AuditEntryInput {
  return {
    at: now,
    actor: actor.kind === 'cli' ? 'cli' : actor.kind === 'key' ? `key:${actor.keyId}` : actor.email,
    actorUserId: actor.kind === 'user' ? actor.userId : null,
    address: actor.kind === 'cli' ? actor.osUser : actor.address,
    action: fact.action,
    accountId: fact.accountId ?? null,
    objectType: fact.object?.type ?? null,
    objectId: fact.object === undefined ? null : String(fact.object.id),
    detail: safeDetail(fact.detail),
  };
}

export interface AuditPage {
  entries: AuditEntry[];
  /** The `before` of the next page, or null when this one is the last. */
  next: number | null;
}

export const auditPageSize = 50;

export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes one row. Pass the store of the transaction that makes the change, so that the
   * row and the change are committed (or undone) together.
   */
  async record(actor: Actor, fact: AuditFact, store: Store = this.store): Promise<void> {
    await store.audit.record(auditRow(actor, fact, this.clock.now()));
  }

  /**
   * The panel's one audit policy: a change and its row in one transaction, committed
   * together or not at all. `work` makes the change on the transaction's store; `fact` says
   * what was done from what it returned, or null when it changed nothing (a name taken, a
   * number not listed): then no row. Work that must not hold a transaction open (a password
   * hash, an HTTP call) is done before or after, never inside.
   */
  change<T>(actor: Actor, work: (store: Store) => Promise<T>, fact: (done: T) => AuditFact | null): Promise<T> {
    return this.store.transaction(async (store) => {
      const done = await work(store);
      const row = fact(done);
      if (row !== null) await this.record(actor, row, store);
      return done;
    });
  }

  async search(query: Omit<AuditSearch, 'limit'>, limit = auditPageSize): Promise<AuditPage> {
    const rows = await this.store.audit.search({ ...query, limit: limit + 1 });
    const entries = rows.slice(0, limit);
    return { entries, next: rows.length > limit ? (entries[entries.length - 1]?.id ?? null) : null };
  }
}
