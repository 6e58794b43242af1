/**
 * A customer's API keys and their webhooks: the provider's operations (AdminService,
 * WebhookAdmin) restricted to the customer's account. Anything of another account is
 * refused as not found; the rules themselves stay in the services called.
 */
import type { Clock } from '../../../ports/clock.js';
import type { ApiKey, KeySettings } from '../../../ports/keys.js';
import type { Store } from '../../../ports/store.js';
import { panelKeyHint } from '../../../ports/panel-queries.js';
import type { KeyAction } from '../../../domain/api-key.js';
import { AdminService, keyView } from '../../admin.js';
import type { KeyView } from '../../admin.js';
import type { DeliveryView, WebhookAdmin } from '../../webhook-admin.js';
import { NotFound } from '../not-found.js';
import { ok } from '../../../domain/result.js';
import type { AdminResult } from '../../admin-result.js';
import type { AccountChanges, Customer } from './account-changes.js';

export interface PanelKeyView extends KeyView {
  last_used: string | null;
}

export interface KeysDeps {
  store: Store;
  clock: Clock;
  webhooks: WebhookAdmin;
}

/** The key panel sends are recorded under: no issued key has the panel's hint. */
function isPanelKey(key: ApiKey): boolean {
  return key.keyHint === panelKeyHint;
}

export class CustomerKeys {
  constructor(
    private readonly deps: KeysDeps,
    private readonly customer: Customer,
    private readonly changes: AccountChanges,
  ) {}

  /**
   * One of the account's keys, as the customer may see and change it. The key panel sends
   * are recorded under (CustomerSend) is the panel's own: not listed, and not found here
   * like another account's key, so no page or action can pause, revoke, rotate or edit it.
   */
  private async ownKey(keyId: number, store: Store = this.deps.store): Promise<ApiKey> {
    const key = await store.keys.getKey(keyId);
    if (!key || key.accountId !== this.customer.accountId || isPanelKey(key)) throw new NotFound(`no key ${keyId}`);
    return key;
  }

  private admin(store: Store): AdminService {
    return new AdminService(store, this.deps.clock);
  }

  async list(): Promise<PanelKeyView[]> {
    const { store, clock } = this.deps;
    const ids = await store.users.keyIdsOf(this.customer.accountId);
    const lastUsed = await store.users.lastUsed(ids);
    const out: PanelKeyView[] = [];
    for (const id of ids) {
      const key = await store.keys.getKey(id);
      if (!key || isPanelKey(key)) continue;
      out.push(this.view(key, lastUsed.get(id), clock.now()));
    }
    return out;
  }

  async get(keyId: number): Promise<PanelKeyView> {
    const key = await this.ownKey(keyId);
    const used = (await this.deps.store.users.lastUsed([keyId])).get(keyId);
    return this.view(key, used, this.deps.clock.now());
  }

  private view(key: ApiKey, used: number | undefined, now: number): PanelKeyView {
    return { ...keyView(key, now), last_used: used === undefined ? null : new Date(used).toISOString() };
  }

  create(settings: KeySettings): Promise<{ api_key: string } & KeyView> {
    return this.changes.make(
      (store) => this.admin(store).createKey(this.customer.accountId, settings),
      (made) => ({ action: 'key.create', object: { type: 'key', id: made.id }, detail: { sandbox: made.sandbox } }),
    );
  }

  /** AdminError: the key's state does not allow it (a revoked key). */
  update(keyId: number, patch: Partial<KeySettings>): Promise<KeyView> {
    return this.onKey(keyId, 'key.update', (admin) => admin.updateKey(keyId, patch));
  }

  /** AdminError: the key's state does not allow the action. */
  changeState(keyId: number, action: KeyAction): Promise<KeyView> {
    return this.onKey(keyId, `key.${action}`, (admin) => admin.changeKeyState(keyId, action));
  }

  /** AdminError: only an Active key can be rotated. */
  rotate(keyId: number, keepOld: boolean): ReturnType<AdminService['rotateKey']> {
    return this.onKey(
      keyId,
      'key.rotate',
      (admin) => admin.rotateKey(keyId, keepOld),
      (rotated) => ({ new_id: rotated.id, keep_old: keepOld }),
    );
  }

  updateWebhook(keyId: number, patch: Partial<KeySettings>): Promise<KeyView> {
    const urlSet = patch.webhookUrl !== null && patch.webhookUrl !== undefined;
    return this.onKey(
      keyId,
      'webhook.update',
      (admin) => admin.updateKey(keyId, patch),
      () => ({ url_set: urlSet }),
    );
  }

  /** A change of one of the account's keys, with its row on the key. */
  private onKey<T>(
    keyId: number,
    action: string,
    work: (admin: AdminService) => Promise<T>,
    detail?: (done: T) => Record<string, string | number | boolean>,
  ): Promise<T> {
    return this.changes.make(
      async (store) => {
        await this.ownKey(keyId, store);
        return work(this.admin(store));
      },
      (done) => ({ action, object: { type: 'key', id: keyId }, ...(detail ? { detail: detail(done) } : {}) }),
    );
  }

  async deliveries(keyId: number, limit: number): Promise<DeliveryView[]> {
    await this.ownKey(keyId);
    const listed = await this.deps.webhooks.deliveries(keyId, limit);
    if (!listed.ok) throw new NotFound(listed.message);
    return listed.value.deliveries;
  }

  /** A key.test event attempted now. ADM-REFUSED: the key has no webhook URL. */
  async testWebhook(keyId: number): Promise<AdminResult<DeliveryView>> {
    const event = await this.changes.make(
      async (store) => {
        await this.ownKey(keyId, store);
        return this.deps.webhooks.on(store).claimTest(keyId);
      },
      (claimed) => (claimed.ok ? { action: 'webhook.test', object: { type: 'key', id: keyId } } : null),
    );
    return event.ok ? ok(await this.deps.webhooks.attempt(event.value, false)) : event;
  }

  /** Another attempt of one of the key's events, now. ADM-REFUSED: an attempt is in flight. */
  async redeliver(keyId: number, eventId: number): Promise<AdminResult<DeliveryView>> {
    const event = await this.changes.make(
      async (store) => {
        await this.ownKey(keyId, store);
        const found = await store.events.findEvent(eventId);
        if (!found || found.keyId !== keyId) throw new NotFound(`no event ${eventId} of key ${keyId}`);
        return this.deps.webhooks.on(store).claimAgain(eventId);
      },
      (claimed) =>
        claimed.ok
          ? { action: 'webhook.redeliver', object: { type: 'key', id: keyId }, detail: { event: eventId } }
          : null,
    );
    return event.ok ? ok(await this.deps.webhooks.attempt(event.value, true)) : event;
  }
}
