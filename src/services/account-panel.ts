/**
 * The provider's key, webhook, sender ID and account operations (AdminService,
 * WebhookAdmin), restricted to one account: what the customer panel calls. Every method
 * takes the signed-in user's account first and refuses, as not found, anything of another
 * account: the rules themselves stay in the services it calls.
 */
import type { Clock } from '../ports/clock.js';
import type { ApiKey, KeySettings } from '../ports/keys.js';
import type { Store } from '../ports/store.js';
import { panelKeyHint } from '../ports/panel-queries.js';
import type { KeyAction } from '../domain/api-key.js';
import { accountView, keyView } from './admin.js';
import type { AdminService, KeyView, AccountView } from './admin.js';
import type { DeliveryView, WebhookAdmin } from './webhook-admin.js';
import type { SenderIdView } from './sender-id-admin.js';
import { senderIdView } from './sender-id-admin.js';
import { userView } from './panel-users.js';
import type { UserView } from './panel-users.js';
import { AuditLog } from './console/audit-log.js';
import { ProviderConsole } from './console/provider-console.js';

/** Not there, or not the account's: the panel answers both the same way. */
export class NotFoundForAccount extends Error {}

/** The key panel sends are recorded under: no issued key has the panel's hint. */
function isPanelKey(key: ApiKey): boolean {
  return key.keyHint === panelKeyHint;
}

export interface PanelKeyView extends KeyView {
  last_used: string | null;
}

export interface PanelSenderIdView extends SenderIdView {
  reason: string | null;
}

export class AccountPanel {
  /** The audit log every panel action that changes something writes to (issue 22). */
  readonly audit: AuditLog;
  /** The provider console's use cases (issue 22), for provider users' pages only. */
  readonly console: ProviderConsole;

  constructor(
    private readonly store: Store,
    private readonly admin: AdminService,
    private readonly webhooks: WebhookAdmin,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, clock);
    this.console = new ProviderConsole(store, clock, this.audit);
  }

  async account(accountId: number): Promise<AccountView> {
    return accountView(await this.admin.account(accountId));
  }

  /**
   * One of the account's keys, as the customer may see and change it. The key panel sends
   * are recorded under (PanelSendService) is the panel's own: not listed, and not found here
   * like another account's key, so no page or action can pause, revoke, rotate or edit it.
   */
  private async ownKey(accountId: number, keyId: number): Promise<ApiKey> {
    const key = await this.store.keys.getKey(keyId);
    if (!key || key.accountId !== accountId || isPanelKey(key)) throw new NotFoundForAccount(`no key ${keyId}`);
    return key;
  }

  async keys(accountId: number): Promise<PanelKeyView[]> {
    const ids = await this.store.users.keyIdsOf(accountId);
    const lastUsed = await this.store.users.lastUsed(ids);
    const now = this.clock.now();
    const out: PanelKeyView[] = [];
    for (const id of ids) {
      const key = await this.store.keys.getKey(id);
      if (!key || isPanelKey(key)) continue;
      const used = lastUsed.get(id);
      out.push({ ...keyView(key, now), last_used: used === undefined ? null : new Date(used).toISOString() });
    }
    return out;
  }

  async key(accountId: number, keyId: number): Promise<PanelKeyView> {
    const key = await this.ownKey(accountId, keyId);
    const used = (await this.store.users.lastUsed([keyId])).get(keyId);
    return { ...keyView(key, this.clock.now()), last_used: used === undefined ? null : new Date(used).toISOString() };
  }

  createKey(accountId: number, settings: KeySettings): Promise<{ api_key: string } & KeyView> {
    return this.admin.createKey(accountId, settings);
  }

  async updateKey(accountId: number, keyId: number, patch: Partial<KeySettings>): Promise<KeyView> {
    await this.ownKey(accountId, keyId);
    return this.admin.updateKey(keyId, patch);
  }

  async changeKeyState(accountId: number, keyId: number, action: KeyAction): Promise<KeyView> {
    await this.ownKey(accountId, keyId);
    return this.admin.changeKeyState(keyId, action);
  }

  async rotateKey(
    accountId: number,
    keyId: number,
    keepOld: boolean,
  ): Promise<Awaited<ReturnType<AdminService['rotateKey']>>> {
    await this.ownKey(accountId, keyId);
    return this.admin.rotateKey(keyId, keepOld);
  }

  async testWebhook(accountId: number, keyId: number): Promise<DeliveryView> {
    await this.ownKey(accountId, keyId);
    return this.webhooks.testWebhook(keyId);
  }

  async deliveries(accountId: number, keyId: number, limit: number): Promise<DeliveryView[]> {
    await this.ownKey(accountId, keyId);
    return (await this.webhooks.deliveries(keyId, limit)).deliveries;
  }

  /** Another attempt of one of the key's events, now. */
  async redeliver(accountId: number, keyId: number, eventId: number): Promise<DeliveryView> {
    await this.ownKey(accountId, keyId);
    const event = await this.store.events.findEvent(eventId);
    if (!event || event.keyId !== keyId) throw new NotFoundForAccount(`no event ${eventId} of key ${keyId}`);
    return this.webhooks.redeliver(eventId);
  }

  async senderIds(accountId: number): Promise<PanelSenderIdView[]> {
    const reasons = await this.store.users.rejectionReasons(accountId);
    return (await this.store.senderIds.listOf(accountId)).map((s) => ({
      ...senderIdView(s),
      reason: s.status === 'rejected' ? (reasons.get(s.id) ?? null) : null,
    }));
  }

  /** A requested sender ID is pending until the provider approves it (`admin sender-id approve`). */
  requestSenderId(accountId: number, title: string): Promise<SenderIdView> {
    return this.admin.senderIds.add(accountId, title, 'pending');
  }

  async users(accountId: number): Promise<UserView[]> {
    return (await this.store.users.usersOf(accountId)).map(userView);
  }

  setAccountAllowlist(accountId: number, ipAllow: string[]): Promise<AccountView> {
    return this.admin.updateAccount(accountId, { ipAllow }, {});
  }
}
