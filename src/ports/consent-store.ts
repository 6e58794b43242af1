/** Consents for commercial messages (İYS), per account: the newest per recipient and type wins. */
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
  /** The account's İYS settings, or null when it has none. */
  settingsOf(accountId: number): Promise<IysSettings | null>;
  /** Creates or replaces the account's İYS settings; fields left undefined keep their value. */
  saveSettings(accountId: number, settings: IysSettingsPatch, now: number): Promise<IysSettings>;
}

/** An account's İYS settings. The password is kept only as `passwordSecret` (encrypted, or a file reference). */
export interface IysSettings {
  accountId: number;
  iysCode: string;
  brandCode: string;
  url: string | null;
  username: string | null;
  passwordSecret: string | null;
  /** Comma-separated words that make an inbound reply a RET; null: the default ones. */
  retWords: string | null;
  updatedAt: number;
}

export type IysSettingsPatch = Partial<Omit<IysSettings, 'accountId' | 'updatedAt'>> &
  Pick<IysSettings, 'iysCode' | 'brandCode'>;
