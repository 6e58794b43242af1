/** Sends and their messages as the send paths (the HTTP thread) write them. */
import type { SmsLang } from './carrier.js';
import type { CommercialTally } from '../domain/iys.js';
import type { SendWindow } from '../domain/send-controls.js';
import type { NewShortLink } from './link-store.js';

export type SendKind = 'sms' | 'group' | 'mixed' | 'otp';

export interface NewSend {
  accountId: number;
  keyId: number;
  kind: SendKind;
  sender: string;
  /** The one text of the send; null when every message has its own (sendMixed). */
  text: string | null;
  lang: SmsLang;
  contentType: number;
  scheduledAt: number | null;
  sandbox: boolean;
  totalNumbers: number;
  invalidNumbers: number;
  blockedNumbers: number;
  smsCost: number;
  createdAt: number;
  priority: number;
  /** Encoded DeferredRecipients, or null when the messages are written with the send. */
  pendingRecipients: string | null;
  /** Made with `short_links` 1 (a bulk send's links are made as its messages are written out). */
  shortLinks?: boolean;
  /** A commercial send's filter (İYS): its left-out recipients are the last of its list. */
  iys?: CommercialTally | null;
  /** A send's window, speed and validity, when it asked for some (docs/decisions.md, "Send window, speed and validity"). */
  controls?: StoredControls;
}

/** A send's window, speed and validity as the store keeps them with the send (migration 0059). */
export interface StoredControls {
  window: SendWindow | null;
  speed: number | null;
  /** The instant after which its messages are not submitted; null: no validity. */
  validUntil: number | null;
  /** A paced send's next free slot: where its next messages written take up the pace. */
  paceNextAt: number | null;
}

export interface NewMessage {
  recipient: string;
  /** null: the send's text. */
  text: string | null;
  smsCount: number;
  operator: string;
  /** Set for a number that is failed at once without being submitted (an invalid number). */
  failedDetail?: string;
  /**
   * With `failedDetail`: an sms.failed webhook event with these `data` fields is recorded
   * with the message, when the key's webhook takes sms.failed (a recipient left out of a
   * commercial send).
   */
  failedEvent?: Record<string, unknown>;
  /** When it is due, when not the send's time (a send with a window or a speed). */
  dueAt?: number;
  /** The short links in its text, written with it when a bulk send's messages are written out. */
  links?: readonly NewShortLink[];
}

/** What the messages of one send share. */
export interface MessageDefaults {
  id: number;
  accountId: number;
  keyId: number;
  sandbox: boolean;
  createdAt: number;
  dueAt: number;
  priority: number;
  /** Set when the messages are stored already claimed by this process's dispatcher (handed off), leased until then. */
  leaseUntil?: number;
}

export interface MessageStore {
  /** `count` unused ids from the one id space of sends and messages, ascending. */
  allocateIds(count: number): Promise<number[]>;
  /** Sends in multi-row inserts. */
  insertSends(sends: readonly { id: number; send: NewSend }[]): Promise<void>;
  /** The messages of many sends, in multi-row inserts. */
  insertMessagesOf(
    groups: readonly { send: MessageDefaults; ids: readonly number[]; messages: readonly NewMessage[] }[],
  ): Promise<void>;
}
