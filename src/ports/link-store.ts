/** Short links of sends and their clicks (migration 0056). */
export interface NewShortLink {
  token: string;
  recipient: string;
  url: string;
}

export interface LinkClick {
  /** Where the link goes: only ever the URL the customer sent. */
  url: string;
  /** Whether this was the message's first click, and an sms.clicked event was written with it. */
  event: boolean;
}

export interface LinkStore {
  /** The links of a send, in the send's transaction. */
  insert(accountId: number, sendId: number, links: readonly NewShortLink[], now: number): Promise<void>;
  /**
   * Records a click of a link whose send is still kept (retention removes the send: the link
   * has expired) and, on the first click of any link of a message, writes `sms.clicked` for
   * the key's webhook, in one transaction. Null: no such link.
   */
  click(token: string, now: number): Promise<LinkClick | null>;
  /** Whether the send has short links at all. */
  hasLinks(sendId: number): Promise<boolean>;
  /**
   * A send's clicks over time: counts in buckets of whole minutes, as few as give at most
   * `maxPoints` buckets from its first click to its last; each bucket by its start (ms).
   */
  clickSeries(sendId: number, maxPoints: number): Promise<{ at: number; clicks: number }[]>;
  /** A send's clicks and its recipients who clicked at least once. */
  sendClicks(sendId: number): Promise<{ clicks: number; clickers: number }>;
  /** The links and click counts of some recipients of a send, by recipient. */
  recipientLinks(
    sendId: number,
    recipients: readonly string[],
  ): Promise<Map<string, { links: string[]; clicks: number }>>;
}
