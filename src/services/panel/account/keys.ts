/**
 * A customer's API keys and their webhooks: the provider's operations (AdminService,
 * WebhookAdmin) restricted to the customer's account. Anything of another account is
 * refused as not found (ADM-NOT-FOUND); the rules themselves stay in the services called.
 */
import type { Clock } from '../../../ports/clock.js';
import type { ApiKey, KeySettings } from '../../../ports/keys.js';
import type { Store } from '../../../ports/store.js';
import { panelKeyHint } from '../../../ports/panel-queries.js';
import type { KeyAction } from '../../../domain/api-key.js';
import { AdminService, keyView } from '../../admin.js';
import type { KeyView } from '../../admin.js';
import type { DeliveryView, WebhookAdmin } from '../../webhook-admin.js';
import { ok } from '../../../domain/result.js';
import { notFound } from '../../admin-result.js';
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
   * like another account's key (ADM-NOT-FOUND), so no page or action can pause, revoke,
   * rotate or edit it.
   */
  private async ownKey(keyId: number, store: Store = this.deps.store): Promise<AdminResult<ApiKey>> {
    const key = await store.keys.getKey(keyId);
    if (!key || key.accountId !== this.customer.accountId || isPanelKey(key)) return notFound(`no key ${keyId}`);
    return ok(key);
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

  async get(keyId: number): Promise<AdminResult<PanelKeyView>> {
    const key = await this.ownKey(keyId);
    if (!key.ok) return key;
    const used = (await this.deps.store.users.lastUsed([keyId])).get(keyId);
    return ok(this.view(key.value, used, this.deps.clock.now()));
  }

  private view(key: ApiKey, used: number | undefined, now: number): PanelKeyView {
    return { ...keyView(key, now), last_used: used === undefined ? null : new Date(used).toISOString() };
  }

  create(settings: KeySettings): Promise<AdminResult<{ api_key: string } & KeyView>> {
    return this.changes.make(
      (store) => this.admin(store).createKey(this.customer.accountId, settings),
      (made) =>
        made.ok
          ? {
              action: 'key.create',
              object: { type: 'key', id: made.value.id },
              detail: { sandbox: made.value.sandbox },
            }
          : null,
    );
  }

  /** ADM-REFUSED: the key's state does not allow it (a revoked key). */
  update(keyId: number, patch: Partial<KeySettings>): Promise<AdminResult<KeyView>> {
    return this.onKey(keyId, 'key.update', (admin) => admin.updateKey(keyId, patch));
  }

  /** ADM-REFUSED: the key's state does not allow the action. */
  changeState(keyId: number, action: KeyAction): Promise<AdminResult<KeyView>> {
    return this.onKey(keyId, `key.${action}`, (admin) => admin.changeKeyState(keyId, action));
  }

  /** ADM-REFUSED: only an Active key can be rotated. */
  rotate(keyId: number, keepOld: boolean): ReturnType<AdminService['rotateKey']> {
    return this.onKey(
      keyId,
      'key.rotate',
      (admin) => admin.rotateKey(keyId, keepOld),
      (rotated) => ({ new_id: rotated.id, keep_old: keepOld }),
    );
  }

  updateWebhook(keyId: number, patch: Partial<KeySettings>): Promise<AdminResult<KeyView>> {
    const urlSet = patch.webhookUrl !== null && patch.webhookUrl !== undefined;
    return this.onKey(
      keyId,
      'webhook.update',
      (admin) => admin.updateKey(keyId, patch),
      () => ({ url_set: urlSet }),
    );
  }

  /**
   * A change of one of the account's keys, with its row on the key; a failure writes no row
   * (each is found before anything is written).
   */
  private onKey<T>(
    keyId: number,
    action: string,
    work: (admin: AdminService) => Promise<AdminResult<T>>,
    detail?: (done: T) => Record<string, string | number | boolean>,
  ): Promise<AdminResult<T>> {
    return this.changes.make(
      async (store) => {
        const key = await this.ownKey(keyId, store);
        return key.ok ? work(this.admin(store)) : key;
      },
      (done) =>
        done.ok
          ? { action, object: { type: 'key', id: keyId }, ...(detail ? { detail: detail(done.value) } : {}) }
          : null,
    );
  }

  async deliveries(keyId: number, limit: number): Promise<AdminResult<DeliveryView[]>> {
    const key = await this.ownKey(keyId);
    if (!key.ok) return key;
    const listed = await this.deps.webhooks.deliveries(keyId, limit);
    return listed.ok ? ok(listed.value.deliveries) : listed;
  }

  /** A key.test event attempted now. ADM-REFUSED: the key has no webhook URL. */
  async testWebhook(keyId: number): Promise<AdminResult<DeliveryView>> {
    const event = await this.changes.make(
      async (store) => {
        const key = await this.ownKey(keyId, store);
        return key.ok ? this.deps.webhooks.on(store).claimTest(keyId) : key;
      },
      (claimed) => (claimed.ok ? { action: 'webhook.test', object: { type: 'key', id: keyId } } : null),
    );
    return event.ok ? ok(await this.deps.webhooks.attempt(event.value, false)) : event;
  }

  /** Another attempt of one of the key's events, now. ADM-REFUSED: an attempt is in flight. */
  async redeliver(keyId: number, eventId: number): Promise<AdminResult<DeliveryView>> {
    const event = await this.changes.make(
      async (store) => {
        const key = await this.ownKey(keyId, store);
        if (!key.ok) return key;
        const found = await store.events.findEvent(eventId);
        if (!found || found.keyId !== keyId) return notFound(`no event ${eventId} of key ${keyId}`);
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
