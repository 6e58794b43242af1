/**
 * The steps of a send batch (SendWriter): the ledger read under lock, ids, each request
 * decided in order against the ledger, and the accepted ones' writes.
 */
import type { BalanceBucket, ChargeEntry } from '../ports/accounts.js';
import type { Store } from '../ports/store.js';
import type { MessageDefaults, NewMessage, NewSend, StoredControls } from '../ports/messages.js';
import { dueTimes, mergeControls, validUntilOf } from '../domain/send-controls.js';
import type { Caller } from './auth.js';
import { encodeRecipients } from '../domain/deferred-recipients.js';
import { fail, ok } from '../domain/result.js';
import type { Failure, Result } from '../domain/result.js';
import type { Accepted, Charges, SendPlan } from './send-plan.js';

export interface AcceptRequest {
  caller: Caller;
  plan: SendPlan;
  charges: Charges;
  reply: (accepted: Accepted) => unknown;
  idempotency?: { key: string; hash: string };
}

/** What became of one request in a batch; a replay is answered from the stored response. */
export type Outcome = Result<unknown> | { replay: true } | { error: unknown };

const perMinuteFailure = fail('TS-1060', {
  variant: 'per-minute',
  retryAfterSeconds: 60,
  message: 'Per-minute send limit exceeded',
});

function recipientsOf(plan: SendPlan): number {
  return 'now' in plan.recipients ? plan.recipients.now.length : plan.recipients.later.numbers.length;
}

/** The state a batch decides against, read once under lock; each accepted send moves it. */
export interface Ledger {
  balances: Map<number, Record<BalanceBucket, number>>;
  /** Recipients in the last minute, by account, for accounts with a per-minute limit in the batch. */
  recent: Map<number, number>;
  /** Requests accepted and not yet written, by their admission keys (SendPlan.admit). */
  unwritten: Map<string, number>;
}

/** A request with the ids allocated for it before any write. */
export interface Slot {
  item: AcceptRequest;
  sendId: number;
  messageIds: number[];
}

export type MessageGroup = {
  send: MessageDefaults;
  ids: number[];
  messages: NewMessage[];
  plan: SendPlan;
  /** The send has a window, speed or validity (its own or its account's): not handed off. */
  controlled?: boolean;
};

/** What an accepted request writes. */
export interface Writes {
  item: AcceptRequest;
  total: number;
  charges: ChargeEntry[];
  send: { id: number; send: NewSend };
  messages: MessageGroup | null;
}

interface Decision {
  outcome: Outcome;
  writes: Writes | null;
}

/** Balances and per-minute counts of the batch's accounts, read under their locks. */
export async function readLedger(store: Store, items: readonly AcceptRequest[], now: number): Promise<Ledger> {
  const accountIds = [...new Set(items.map((i) => i.caller.account.id))].sort((a, b) => a - b);
  await store.accounts.lockAccounts(accountIds);
  const balances = await store.accounts.balancesOf(accountIds);
  const recent = new Map<number, number>();
  for (const item of items) {
    const account = item.caller.account;
    if (item.plan.perMinuteLimited === true && account.perMinuteLimit > 0 && !recent.has(account.id)) {
      recent.set(account.id, await store.reports.recipientsSince(account.id, now - 60_000));
    }
  }
  return { balances, recent, unwritten: new Map() };
}

/** One id for each send and each of its immediate messages, in one allocation. */
export async function allocateSlots(store: Store, items: readonly AcceptRequest[]): Promise<Slot[]> {
  const ids = await store.messages.allocateIds(
    items.reduce((n, i) => n + 1 + ('now' in i.plan.recipients ? i.plan.recipients.now.length : 0), 0),
  );
  let next = 0;
  return items.map((item) => {
    const sendId = ids[next] ?? 0;
    const messageIds = ids.slice(
      next + 1,
      next + 1 + ('now' in item.plan.recipients ? item.plan.recipients.now.length : 0),
    );
    next += 1 + messageIds.length;
    return { item, sendId, messageIds };
  });
}

/**
 * One request against the ledger, which it leaves as it is: a replay of its idempotency
 * key, a refusal (per-minute limit, then balance), or what it writes. Its idempotency key
 * is claimed here, and given back when it is refused.
 */
export async function decide(store: Store, slot: Slot, ledger: Ledger, now: number): Promise<Decision> {
  const { item, sendId, messageIds } = slot;
  const accountId = item.caller.account.id;
  const response = item.reply({ sendId, messageIds, totalSms: item.charges.main + item.charges.international });
  if (item.idempotency) {
    const saved = await store.idempotency.save(
      accountId,
      item.idempotency.key,
      item.idempotency.hash,
      JSON.stringify(response),
      now,
    );
    if (!saved) return { outcome: { replay: true }, writes: null };
  }
  const total = recipientsOf(item.plan);
  const refused = (await admission(store, item, ledger, now)) ?? refusal(item, ledger, total);
  if (refused) {
    if (item.idempotency) await store.idempotency.forget(accountId, item.idempotency.key);
    return { outcome: refused, writes: null };
  }
  return { outcome: ok(response), writes: writesOf(slot, total, now) };
}

/** The use case's own limit (SendPlan.admit), on the store's counts and the batch's unwritten requests. */
function admission(store: Store, item: AcceptRequest, ledger: Ledger, now: number): Promise<Failure | null> {
  const admit = item.plan.admit;
  if (admit === undefined) return Promise.resolve(null);
  return admit.check(store, now, (key) => ledger.unwritten.get(key) ?? 0);
}

function refusal(item: AcceptRequest, ledger: Ledger, total: number): Failure | null {
  const account = item.caller.account;
  const counted = ledger.recent.get(account.id);
  if (counted !== undefined && item.plan.perMinuteLimited === true && counted + total > account.perMinuteLimit)
    return perMinuteFailure;
  const balance = ledger.balances.get(account.id) ?? { main: 0, international: 0 };
  if (balance.main < item.charges.main || balance.international < item.charges.international) return fail('TS-1027');
  return null;
}

/**
 * Counts an accepted request whose writes wait for the rest of its batch under its
 * admission keys, so the batch's next requests see it (the store does not yet).
 */
export function holdUnwritten(ledger: Ledger, writes: Writes): void {
  for (const key of writes.item.plan.admit?.keys ?? []) ledger.unwritten.set(key, (ledger.unwritten.get(key) ?? 0) + 1);
}

/** Moves the ledger by an accepted request: its charges and its recipients. */
export function record(ledger: Ledger, writes: Writes): void {
  const accountId = writes.item.caller.account.id;
  const balance = ledger.balances.get(accountId);
  if (balance) for (const charge of writes.charges) balance[charge.bucket] -= charge.amount;
  const counted = ledger.recent.get(accountId);
  if (counted !== undefined) ledger.recent.set(accountId, counted + writes.total);
}

function writesOf(slot: Slot, total: number, now: number): Writes {
  const { item, sendId, messageIds } = slot;
  const { caller, plan } = item;
  const charges: ChargeEntry[] = [];
  for (const bucket of ['main', 'international'] as BalanceBucket[]) {
    if (item.charges[bucket] === 0) continue;
    charges.push({
      accountId: caller.account.id,
      bucket,
      amount: item.charges[bucket],
      reason: `${plan.kind} send`,
      reference: `send:${sendId}`,
    });
  }
  const immediate = 'now' in plan.recipients ? plan.recipients.now : null;
  const controls = storedControls(item, immediate, now);
  const messages = immediate && {
    send: {
      id: sendId,
      accountId: caller.account.id,
      keyId: caller.key.id,
      sandbox: caller.key.sandbox,
      createdAt: now,
      dueAt: plan.scheduledAt ?? now,
      priority: plan.priority,
    },
    ids: messageIds,
    messages: immediate,
    plan,
    ...(controls ? { controlled: true } : {}),
  };
  const send = newSend(item, total, now);
  if (controls) send.controls = controls;
  return { item, total, charges, send: { id: sendId, send }, messages };
}

/**
 * A send's window, speed and validity (its own, else its account's defaults unless it is
 * `withoutDefaults`; docs/decisions.md,
 * "Send window, speed and validity"), and the due times of the messages it writes now. Null,
 * at the cost of two reads of fields, for every send that has none.
 */
function storedControls(item: AcceptRequest, immediate: NewMessage[] | null, now: number): StoredControls | null {
  const { plan } = item;
  const defaults =
    plan.kind === 'otp' || plan.withoutDefaults === true ? null : (item.caller.account.sendDefaults ?? null);
  if (plan.controls === undefined && defaults === null) return null;
  const c = mergeControls(plan.controls ?? null, defaults);
  if (c === null) return null;
  const start = plan.scheduledAt ?? now;
  const validUntil = validUntilOf(c.validityMinutes, start);
  let paceNextAt: number | null = null;
  if (immediate !== null) {
    const going = immediate.filter((m) => m.failedDetail === undefined);
    const due = dueTimes(c, start, going.length, { from: null, validUntil });
    going.forEach((m, i) => (m.dueAt = due.dueAts[i] ?? start));
    paceNextAt = due.next;
  }
  return { window: c.window, speed: c.speed, validUntil, paceNextAt };
}

export function groupsOf(accepted: readonly Writes[]): MessageGroup[] {
  return accepted.flatMap((w) => (w.messages ? [w.messages] : []));
}

export async function writeAll(store: Store, accepted: readonly Writes[], now: number): Promise<void> {
  await store.accounts.applyCharges(
    accepted.flatMap((w) => w.charges),
    now,
  );
  await store.messages.insertSends(accepted.map((w) => w.send));
  await store.messages.insertMessagesOf(groupsOf(accepted));
  for (const w of accepted) await w.item.plan.alongside?.(store, w.send.id, w.messages?.ids ?? []);
}

/** Whether the writes left work in the store's queue for a dispatcher to claim. */
export function queues(accepted: readonly Writes[]): boolean {
  return accepted.some(
    (w) =>
      w.send.send.pendingRecipients !== null ||
      (w.messages !== null &&
        w.messages.send.leaseUntil === undefined &&
        w.messages.messages.some((m) => m.failedDetail === undefined)),
  );
}

function newSend(item: AcceptRequest, total: number, now: number): NewSend {
  const { caller, plan, charges } = item;
  return {
    accountId: caller.account.id,
    keyId: caller.key.id,
    kind: plan.kind,
    sender: plan.sender,
    text: plan.text,
    lang: plan.lang,
    contentType: plan.contentType,
    scheduledAt: plan.scheduledAt,
    sandbox: caller.key.sandbox,
    totalNumbers: total,
    invalidNumbers: plan.invalidNumbers ?? 0,
    blockedNumbers: plan.blockedNumbers ?? 0,
    smsCost: charges.main + charges.international,
    createdAt: now,
    priority: plan.priority,
    pendingRecipients: 'later' in plan.recipients ? encodeRecipients(plan.recipients.later) : null,
    ...('later' in plan.recipients && plan.recipients.later.links !== undefined ? { shortLinks: true } : {}),
    iys: plan.iys ?? null,
  };
}
