import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { InboundRecord, InboundRoute } from '../ports/inbound-store.js';
import { normaliseNumber } from '../domain/recipients.js';
import { ok } from '../domain/result.js';
import { notFound, refused, type AdminResult } from './admin-result.js';

function routeView(r: InboundRoute): { destination: string; account_id: number; created_at: string } {
  return { destination: r.destination, account_id: r.accountId, created_at: new Date(r.createdAt).toISOString() };
}

function messageView(m: InboundRecord): {
  sms_id: number;
  from: string;
  to: string;
  text: string;
  received_at: string;
} {
  return { sms_id: m.id, from: m.from, to: m.to, text: m.text, received_at: new Date(m.receivedAt).toISOString() };
}

function destination(number: string): AdminResult<string> {
  const normalised = normaliseNumber(number);
  return /^\d{3,15}$/.test(normalised) ? ok(normalised) : refused(`not a number or short code: ${number}`);
}

/** Provider commands for inbound numbers: which account receives what is sent to them. */
export class InboundAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async addRoute(accountId: number, number: string): Promise<AdminResult<ReturnType<typeof routeView>>> {
    if (!(await this.store.accounts.getAccount(accountId))) return notFound(`no account with id ${accountId}`);
    const to = destination(number);
    if (!to.ok) return to;
    return ok(routeView(await this.store.inbound.addRoute(to.value, accountId, this.clock.now())));
  }

  async removeRoute(number: string): Promise<AdminResult<{ removed: boolean }>> {
    const to = destination(number);
    if (!to.ok) return to;
    return ok({ removed: await this.store.inbound.removeRoute(to.value) });
  }

  async routes(accountId: number | null): Promise<{ routes: ReturnType<typeof routeView>[] }> {
    return { routes: (await this.store.inbound.routes(accountId)).map(routeView) };
  }

  async messages(accountId: number, limit: number): Promise<{ messages: ReturnType<typeof messageView>[] }> {
    return { messages: (await this.store.inbound.recent(accountId, limit)).map(messageView) };
  }
}
