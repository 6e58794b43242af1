/** Consents for commercial messages (İYS, issue 34), per account: the newest per recipient and type wins. */
import type { Consent, ConsentStatus, RecipientType } from '../domain/iys.js';

export interface ConsentStore {
  /**
   * Records consents. For each account, recipient and type only the newest (by consent date;
   * on a tie, the one recorded last) is kept; an older one changes nothing. Returns, per
   * input, whether it is now the record in force.
   */
  record(accountId: number, consents: readonly Consent[], now: number): Promise<boolean[]>;
  /** The consent in force for a recipient and type, or null when there is none. */
  find(accountId: number, recipient: string, type: RecipientType): Promise<Consent | null>;
  /** The statuses in force of those of these recipients that have one (one indexed lookup per chunk). */
  statusesOf(
    accountId: number,
    type: RecipientType,
    recipients: readonly string[],
  ): Promise<Map<string, ConsentStatus>>;
}
