/**
 * One-time codes in the store (issue 36): written with their send, read and changed by
 * /otp/verify. The code itself is never here: only its keyed hash (domain/otp-check.ts).
 */
import type { StoredOtp } from '../domain/otp-check.js';

export interface NewOtp {
  messageId: number;
  accountId: number;
  keyId: number;
  sandbox: boolean;
  destination: string;
  prefix: string;
  codeHash: string;
  /** The message's real text, sealed (domain/otp-check.ts, sealOtpText). */
  sealedText: string;
  createdAt: number;
  expiresAt: number;
  maxTries: number;
}

/** A key's OTP settings; null fields take the defaults. */
export interface OtpSettings {
  validitySeconds: number | null;
  maxTries: number | null;
}

export interface OtpStore {
  /** The installation's HMAC key (drawn by migration 0026). */
  secret(): Promise<string>;
  /** Call inside the send's transaction. */
  insert(otp: NewOtp): Promise<void>;
  /** The code of an OTP message of this account, locked until the transaction ends; null if none. */
  findForUpdate(accountId: number, messageId: number): Promise<StoredOtp | null>;
  /** Counts one wrong try. */
  countWrongTry(messageId: number): Promise<void>;
  /** Marks the code verified and, when the sending key's webhook takes it, writes the `otp.verified` event. */
  markVerified(otp: StoredOtp, now: number): Promise<{ event: boolean }>;
  settingsOf(keyId: number): Promise<OtpSettings>;
  saveSettings(keyId: number, settings: OtpSettings, now: number): Promise<void>;
}
