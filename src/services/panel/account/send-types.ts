/** What the panel's send form posts, and what it is told before and after a send. */
import type { TextCount } from '../../../domain/sms-counter.js';
import type { Charges } from '../../send-plan.js';
import type { RecipientType } from '../../../domain/iys.js';
import type { TextGap } from '../../../domain/commercial-text.js';
import type { SendControls } from '../../../domain/send-controls.js';
import type { ControlsField, ControlsInput } from './send-shaping.js';

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
  /** The send's window, speed and validity as typed; absent: none. */
  controls?: ControlsInput;
  /**
   * The form showed the account's defaults in `controls` (the send page always does): they are
   * the send's whole choice, and a field emptied there is none for this send. Absent or false:
   * as on the API, each field left empty takes the account's default.
   */
  controlsShown?: boolean;
  /** A template of the account instead of `text`, filled per recipient. */
  templateId?: number | null;
  /** Every URL of the text becomes a short link of each recipient's own. */
  shortLinks?: boolean;
  /** The uploaded CSV's columns by normalised number (a template's fields). */
  csvFields?: ReadonlyMap<string, Readonly<Record<string, string>>>;
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

export type SendField =
  'sender' | 'recipients' | 'group' | 'text' | 'schedule' | 'balance' | 'template' | 'links' | ControlsField;
export type SendError =
  | 'required'
  | 'not-approved'
  | 'not-found'
  | 'too-long'
  | 'too-many'
  | 'invalid'
  | 'past'
  | 'insufficient'
  | 'text-rules'
  | 'missing-field';

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
  /** The send's own window, speed and validity; null: none asked for. */
  controls: SendControls | null;
  /** The first recipient's text as it goes out, when texts differ by recipient (a template, short links). */
  sample: string | null;
  /** The recipient and placeholder a template could not fill. */
  missing: string | null;
}

export type PreviewOutcome =
  | { ok: true; preview: SendPreview }
  | { ok: false; errors: Partial<Record<SendField, SendError>>; preview: SendPreview | null };
export type SendOutcome =
  | { ok: true; sendId: number; preview: SendPreview }
  | { ok: false; errors: Partial<Record<SendField, SendError>>; preview: SendPreview | null };
