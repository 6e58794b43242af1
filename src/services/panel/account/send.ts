import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import { panelKeyHint } from '../../../ports/panel-queries.js';
import type { SendService } from '../../send-service.js';
import { chargesOf } from '../../send-plan.js';
import type { Charges } from '../../send-plan.js';
import { bulkSend } from '../../bulk-send.js';
import type { Caller } from '../../auth.js';
import { defaultKeySettings } from '../../admin.js';
import { newApiKey } from '../../key-secrets.js';
import { countText } from '../../../domain/sms-counter.js';
import type { TextCount } from '../../../domain/sms-counter.js';
import { countFor, textTooLong } from '../../../domain/sms-count.js';
import { isPlausibleNumber, isTurkeyNumber, normaliseNumber, subscriberKey } from '../../../domain/recipients.js';
import { maxContactEntries } from '../../../domain/contacts.js';
import { parseSchedule } from '../../../domain/schedule.js';
import type { AccountChanges, Customer } from './account-changes.js';
import { typedEntries } from './csv-import.js';
import { parseRetWords, splitByConsent } from '../../../domain/iys.js';
import type { RecipientType } from '../../../domain/iys.js';
import { commercialTextGaps } from '../../../domain/commercial-text.js';
import type { TextGap } from '../../../domain/commercial-text.js';

/** What the send form posts. Recipients come from any mix of the three sources. */
export interface PanelSendInput {
  sender: string;
  /** Numbers typed or pasted: separated by commas, semicolons or lines (spaces inside a number are kept). */
  numbers: string;
  /** Numbers read from an uploaded CSV (first column, see panel CSV rules). */
  csvNumbers: readonly string[];
  groupId: number | null;
  text: string;
  /** '' (now) or `YYYY-MM-DDTHH:MM` in Europe/Istanbul (a datetime-local input). */
  schedule: string;
  /** A commercial send (İYS) of this recipient type: only recipients with consent are sent to; null: not commercial. */
  commercial: RecipientType | null;
}

/** What the consent filter of a commercial send will do, as the API's filter decides it. */
export interface CommercialPreview {
  type: RecipientType;
  /** Recipients without a consent of the type: left out, not charged. */
  none: number;
  /** Recipients with a RET: left out, not charged. */
  ret: number;
  /** What the text lacks of the commercial text rules (a warning, or a refusal when the account is set so). */
  gaps: TextGap[];
}

export type SendField = 'sender' | 'recipients' | 'group' | 'text' | 'schedule' | 'balance';
export type SendError =
  | 'required'
  | 'not-approved'
  | 'not-found'
  | 'too-long'
  | 'too-many'
  | 'invalid'
  | 'past'
  | 'insufficient'
  | 'text-rules';

export interface SendPreview {
  count: TextCount;
  /** Numbers that will be sent to and charged, normalised, each once. */
  recipients: string[];
  /** On the account's blocking list: skipped, not charged. */
  blocked: string[];
  /** Entries that are no phone number: skipped, not charged. */
  invalid: string[];
  cost: Charges & { total: number };
  balance: Charges;
  scheduledAt: number | null;
  /** For a commercial send: how many recipients lack consent, and the text's gaps. */
  commercial: CommercialPreview | null;
}

export type PreviewOutcome =
  | { ok: true; preview: SendPreview }
  | { ok: false; errors: Partial<Record<SendField, SendError>>; preview: SendPreview | null };
export type SendOutcome =
  | { ok: true; sendId: number; preview: SendPreview }
  | { ok: false; errors: Partial<Record<SendField, SendError>>; preview: SendPreview | null };

/**
 * Sending from the panel: the same bulk send as /group/send (same validation, charging and
 * queue), recorded as a campaign, with one difference the spec asks for: the account's
 * blocking list applies here, and blocked numbers are skipped, not charged.
 */
export class CustomerSend {
  constructor(
    private readonly deps: { store: Store; sends: SendService; clock: Clock },
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
    const { accountId } = this.customer;
    const errors: Partial<Record<SendField, SendError>> = {};
    const account = await this.store.accounts.getAccount(accountId);
    if (!account) return { ok: false, errors: { sender: 'not-found' }, preview: null };
    const senders = await this.store.senderIds.approvedSenderIds(accountId);
    if (input.sender.trim() === '') errors.sender = 'required';
    else if (!senders.some((s) => s.title === input.sender)) errors.sender = 'not-approved';
    if (input.text === '') errors.text = 'required';
    else if (textTooLong(input.text)) errors.text = 'too-long';

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
      const settings = await this.store.consents.settingsOf(accountId);
      const gaps = commercialTextGaps(input.text, input.sender, parseRetWords(settings?.retWords ?? null));
      commercial = {
        type: input.commercial,
        none: split.none.length,
        ret: split.ret.length,
        gaps,
      };
      if (gaps.length > 0 && settings?.refuseTextRules === true) errors.text = 'text-rules';
    }

    const count = countText(input.text);
    const charges = chargesOf(
      charged.map((recipient) => ({ recipient, smsCount: countFor(recipient, input.text, count.lang, 'bulk') })),
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
    };
    if (charges.main > account.balanceMain || charges.international > account.balanceInternational)
      errors.balance = 'insufficient';
    return Object.keys(errors).length > 0 ? { ok: false, errors, preview } : { ok: true, preview };
  }

  /** Checked again as the preview was, then sent; its audit row is written in the send's transaction. */
  async send(input: PanelSendInput): Promise<SendOutcome> {
    const checked = await this.preview(input);
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
      texts: input.text,
      scheduledAt: preview.scheduledAt,
      blockedNumbers: preview.blocked.length,
      commercial: input.commercial,
      alongside: this.changes.alongside((sendId) => ({
        action: 'send.create',
        object: { type: 'send', id: String(sendId) },
      })),
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
