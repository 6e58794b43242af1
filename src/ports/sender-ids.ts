/** Sender IDs (originator titles) of accounts. */
export interface SenderId {
  id: number;
  accountId: number;
  title: string;
  /**
   * `awaiting-reseller`: a reseller's customer asked for it and the reseller has not yet
   * passed it on (then `pending`, the provider's review) or rejected it.
   */
  status: 'approved' | 'pending' | 'rejected' | 'awaiting-reseller';
  createdAt: number;
}

export interface SenderIdStore {
  /** Adds a sender ID; null when the account already has one with this title (titles are unique per account). */
  addSenderId(accountId: number, title: string, status: SenderId['status'], now: number): Promise<SenderId | null>;
  getSenderId(id: number): Promise<SenderId | null>;
  /** Every sender ID of an account, whatever its status, oldest first. */
  listOf(accountId: number): Promise<SenderId[]>;
  /** Deletes a sender ID; false when there was none with this id. */
  removeSenderId(id: number): Promise<boolean>;
  /** Approved sender IDs of an account, newest first. */
  approvedSenderIds(accountId: number): Promise<SenderId[]>;
  hasApprovedSender(accountId: number, title: string): Promise<boolean>;
}
