import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import { panelKeyHint } from '../../../ports/panel-queries.js';
import type { SendService } from '../../send-service.js';
import { chargesOf } from '../../send-plan.js';
import { bulkSend } from '../../bulk-send.js';
import type { Caller } from '../../auth.js';
import { defaultKeySettings } from '../../admin.js';
import { newApiKey } from '../../key-secrets.js';
import { countText } from '../../../domain/sms-counter.js';
import { countFor, textTooLong } from '../../../domain/sms-count.js';
import { isPlausibleNumber, isTurkeyNumber, normaliseNumber, subscriberKey } from '../../../domain/recipients.js';
import { maxContactEntries } from '../../../domain/contacts.js';
import { parseSchedule } from '../../../domain/schedule.js';
import type { AccountChanges, Customer } from './account-changes.js';
import { typedEntries } from './csv-import.js';
import { splitByConsent } from '../../../domain/iys.js';
import { textRuleGaps, textsSent } from './send-text-rules.js';
import type { ShortLinkService } from '../../short-link-service.js';
import { noControls } from '../../../domain/send-controls.js';
import { withStandInLinks } from '../../../domain/short-links.js';
import type { SendControls } from '../../../domain/send-controls.js';
import { parseControls, shapeTexts } from './send-shaping.js';
import { widestCount } from './send-shaping.js';
import type { Shaped } from './send-shaping.js';

export type {
  PanelSendInput,
  CommercialPreview,
  SendField,
  SendError,
  SendPreview,
  PreviewOutcome,
  SendOutcome,
} from './send-types.js';
import type {
  CommercialPreview,
  PanelSendInput,
  PreviewOutcome,
  SendError,
  SendField,
  SendOutcome,
  SendPreview,
} from './send-types.js';

/** A checked send with its texts as they go out. */
interface Checked {
  outcome: PreviewOutcome;
  shaped: Shaped | null;
}

/**
 * Sending from the panel: the same bulk send as /group/send (same validation, charging and
 * queue), recorded as a campaign, with one difference the spec asks for: the account's
 * blocking list applies here, and blocked numbers are skipped, not charged.
 */
export class CustomerSend {
  constructor(
    private readonly deps: { store: Store; sends: SendService; clock: Clock; links: ShortLinkService },
    private readonly customer: Customer,
    private readonly changes: AccountChanges,
  ) {}

  private get store(): Store {
    return this.deps.store;
  }

  /** Titles of the account's approved sender IDs, for the form's choice. */
  async approvedSenders(): Promise<string[]> {
    return (await this.store.senderIds.approvedSenderIds(this.customer.accountId)).map((s) => s.title);
  }

  async preview(input: PanelSendInput): Promise<PreviewOutcome> {
    return (await this.check(input)).outcome;
  }

  /** The account's default window, speed and validity (the form's prefilled values). */
  async defaults(): Promise<SendControls | null> {
    return (await this.store.accounts.getAccount(this.customer.accountId))?.sendDefaults ?? null;
  }

  private async check(input: PanelSendInput): Promise<Checked> {
    const { accountId } = this.customer;
    const errors: Partial<Record<SendField, SendError>> = {};
    const account = await this.store.accounts.getAccount(accountId);
    if (!account) return { outcome: { ok: false, errors: { sender: 'not-found' }, preview: null }, shaped: null };
    const senders = await this.store.senderIds.approvedSenderIds(accountId);
    if (input.sender.trim() === '') errors.sender = 'required';
    else if (!senders.some((s) => s.title === input.sender)) errors.sender = 'not-approved';
    const templateId = input.templateId ?? null;
    if (templateId === null && input.text === '') errors.text = 'required';
    else if (templateId === null && textTooLong(input.text)) errors.text = 'too-long';
    let controls: SendControls | null = null;
    if (input.controls) {
      const parsed = parseControls(input.controls);
      if (parsed.ok) controls = noControls(parsed.controls) ? null : parsed.controls;
      else for (const f of parsed.errors) errors[f] = 'invalid';
    }

    const entries = [...typedEntries(input.numbers), ...input.csvNumbers];
    if (input.groupId !== null) {
      const numbers = await this.store.panel.groupNumbers(accountId, input.groupId);
      if (numbers === null) errors.group = 'not-found';
      else entries.push(...numbers);
    }
    const seen = new Set<string>();
    const invalid: string[] = [];
    const candidates: string[] = [];
    for (const entry of entries) {
      const n = normaliseNumber(entry);
      if (!isPlausibleNumber(n)) invalid.push(entry);
      else if (!seen.has(n)) {
        seen.add(n);
        candidates.push(n);
      }
    }
    // The blocking list holds Türkiye mobiles, compared by their last ten digits (spec).
    const blockedKeys = await this.store.panel.blockedAmong(
      accountId,
      candidates.filter(isTurkeyNumber).map(subscriberKey),
    );
    const blocked = candidates.filter((n) => isTurkeyNumber(n) && blockedKeys.has(subscriberKey(n)));
    const recipients = candidates.filter((n) => !(isTurkeyNumber(n) && blockedKeys.has(subscriberKey(n))));
    if (recipients.length === 0 && errors.group === undefined) errors.recipients = 'required';
    if (recipients.length > maxContactEntries) errors.recipients = 'too-many';

    let scheduledAt: number | null = null;
    const schedule = input.schedule.trim();
    if (schedule !== '') {
      const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})$/.exec(schedule);
      const parsed = m ? parseSchedule({ date: m[1], time: m[2] }, this.deps.clock.now()) : null;
      if (parsed?.ok) scheduledAt = parsed.value;
      else errors.schedule = parsed && parsed.code === 'TS-1072' ? 'past' : 'invalid';
    }

    // A commercial send: the same filter as the API's (src/domain/iys.ts, splitByConsent).
    let commercial: CommercialPreview | null = null;
    let charged = recipients;
    if (input.commercial !== null) {
      const split = splitByConsent(await this.store.consents.statusesOf(accountId, input.commercial, recipients));
      charged = split.sent.map((i) => recipients[i] as string);
      // Its text rules are checked below, once its texts are shaped.
      commercial = { type: input.commercial, none: split.none.length, ret: split.ret.length, gaps: [] };
    }

    // A template or short links: each recipient's text as it goes out, and the cost is theirs.
    let shaped: Shaped | null = null;
    let missing: string | null = null;
    if ((templateId !== null || input.shortLinks === true) && recipients.length > 0 && errors.text === undefined) {
      const result = await shapeTexts(
        this.deps,
        accountId,
        {
          text: input.text,
          templateId,
          shortLinks: input.shortLinks === true,
          csvFields: input.csvFields ?? new Map(),
        },
        recipients,
      );
      if (result.ok) shaped = result.shaped;
      else {
        errors[result.field] = result.error;
        missing = result.missing ?? null;
      }
    }
    // Each text as it goes out: with short links, as long as they will be.
    const base = shaped?.linkBase ?? null;
    const sent = (text: string): string => (base === null ? text : withStandInLinks(text, base));
    const texts = shaped?.texts?.map(sent) ?? null;
    const shared = sent(shaped?.text ?? input.text);
    const count = texts === null ? countText(shared) : widestCount(texts);
    const index = new Map(recipients.map((r, i) => [r, i]));
    const textOf = (r: string): string => texts?.[index.get(r) ?? 0] ?? shared;
    const charges = chargesOf(
      charged.map((recipient) => ({ recipient, smsCount: countFor(recipient, textOf(recipient), count.lang, 'bulk') })),
    );
    const preview: SendPreview = {
      count,
      recipients,
      blocked,
      invalid,
      cost: { ...charges, total: charges.main + charges.international },
      balance: { main: account.balanceMain, international: account.balanceInternational },
      scheduledAt,
      commercial,
      controls,
      sample: texts?.[0] ?? (base === null ? null : shared),
      missing,
    };
    if (charges.main > account.balanceMain || charges.international > account.balanceInternational)
      errors.balance = 'insufficient';
    // The text rules on the texts as they go out (a chosen template's, not the typed text), as
    // the API checks them; `commercial` is the preview's. Refused on the field that gave the text.
    if (commercial !== null) {
      const sent = await textsSent(this.store, accountId, { text: input.text, templateId }, shaped);
      const rules = await textRuleGaps(this.store, accountId, input.sender, sent);
      commercial.gaps.push(...rules.gaps);
      if (rules.gaps.length > 0 && rules.refuse) errors[templateId === null ? 'text' : 'template'] ??= 'text-rules';
    }
    return {
      outcome: Object.keys(errors).length > 0 ? { ok: false, errors, preview } : { ok: true, preview },
      shaped,
    };
  }

  /** Checked again as the preview was, then sent; its audit row is written in the send's transaction. */
  async send(input: PanelSendInput): Promise<SendOutcome> {
    const { outcome: checked, shaped } = await this.check(input);
    if (!checked.ok) return checked;
    const { preview } = checked;
    // A change like any other, before anything is sent: the panel's key may be made here.
    const caller = await this.changes.make(
      (store) => this.caller(store),
      () => null,
    );
    if (!caller) return { ok: false, errors: { sender: 'not-found' }, preview };
    const sent = await bulkSend(this.deps.sends, caller, {
      kind: 'group',
      title: input.sender,
      lang: preview.count.lang,
      numbers: preview.recipients,
      texts: shaped?.texts ?? shaped?.text ?? input.text,
      scheduledAt: preview.scheduledAt,
      blockedNumbers: preview.blocked.length,
      commercial: input.commercial,
      alongside: this.changes.alongside((sendId) => ({
        action: 'send.create',
        object: { type: 'send', id: String(sendId) },
      })),
      ...(shaped?.linkBase ? { shortLinks: shaped.linkBase } : {}),
      ...(preview.controls ? { controls: preview.controls } : {}),
      // The form showed the defaults: what it posted is the whole choice, an emptied field none.
      ...(input.controlsShown === true ? { withoutDefaults: true } : {}),
    });
    if (sent.ok) return { ok: true, sendId: sent.value.rapor_id, preview };
    // The checks above ran before the send transaction; these are races with other writers.
    const field: SendField = sent.code === 'TS-1028' ? 'sender' : sent.code === 'TS-1027' ? 'balance' : 'recipients';
    return { ok: false, errors: { [field]: field === 'balance' ? 'insufficient' : 'invalid' }, preview };
  }

  /**
   * Panel sends are recorded under a key of their own per account (sends belong to a key),
   * made on the first panel send. It cannot be used on the API by anyone: its secret is 256
   * random bits (newApiKey) of which only the hash is kept, and the secret itself is dropped
   * right here, never shown, printed or stored, so no request can ever present it. The panel
   * hides the key from the customer (CustomerKeys), who could otherwise pause, edit or rotate
   * it; `haberci admin key show` shows it, with the hint `(panel)`.
   */
  private async caller(store: Store): Promise<Caller | null> {
    const { accountId, actor } = this.customer;
    const account = await store.accounts.getAccount(accountId);
    if (!account) return null;
    let keyId = await store.panel.panelKeyId(accountId);
    if (keyId === null)
      keyId = (
        await store.keys.createKey(
          accountId,
          newApiKey(false).hash,
          panelKeyHint,
          { ...defaultKeySettings },
          this.deps.clock.now(),
        )
      ).id;
    const key = await store.keys.getKey(keyId);
    return key ? { key, account, clientIp: actor.address ?? '' } : null;
  }
}
