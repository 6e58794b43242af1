/**
 * The rules of checking a one-time code: how long a code is valid, how many wrong
 * tries kill it, the keyed hash it is stored as, the constant-time comparison, and what a
 * verify attempt finds. Pure: the secret, the time and the row come in as parameters.
 */
// node:crypto is used only for HMAC, a constant-time compare and sealing a text: computations
// with no I/O (the IV's randomness is the one impurity, as a seal needs it).
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Five minutes, unless the key's settings or the send's `validity` say otherwise. */
export const defaultOtpValiditySeconds = 300;
export const minOtpValiditySeconds = 30;
export const maxOtpValiditySeconds = 3600;

/** Wrong tries after which a code is dead. */
export const defaultOtpMaxTries = 5;
export const maxOtpMaxTries = 20;

export function validOtpValidity(seconds: number): boolean {
  return Number.isInteger(seconds) && seconds >= minOtpValiditySeconds && seconds <= maxOtpValiditySeconds;
}

export function validOtpMaxTries(tries: number): boolean {
  return Number.isInteger(tries) && tries >= 1 && tries <= maxOtpMaxTries;
}

/**
 * The stored form of a code: HMAC-SHA256 under the installation's secret over the message id
 * and the code, so that the same code of two messages has two unrelated hashes and the hash
 * cannot be searched without the secret. Lowercase hex.
 */
export function otpCodeHash(secret: string, messageId: number, code: string): string {
  return createHmac('sha256', secret).update(`${messageId}:${code}`).digest('hex');
}

/** Compares two hashes of equal length in constant time (any other pair: false). */
export function sameOtpHash(stored: string, offered: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(offered, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

/**
 * A code as a caller sends it to /otp/verify: digits only (an integer in JSON, or text with
 * surrounding spaces), or null when it is not one (missing, empty, letters, fractions).
 */
export function offeredCode(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return /^\d{1,12}$/.test(trimmed) ? trimmed : null;
}

export interface StoredOtp {
  messageId: number;
  accountId: number;
  keyId: number;
  sandbox: boolean;
  codeHash: string;
  expiresAt: number;
  maxTries: number;
  tries: number;
  verifiedAt: number | null;
}

/** Why a code can no longer be verified, checked in this order; null: it is open. */
export type OtpClosed = 'used' | 'dead' | 'expired';

export function otpClosed(otp: StoredOtp, now: number): OtpClosed | null {
  if (otp.verifiedAt !== null) return 'used';
  if (otp.tries >= otp.maxTries) return 'dead';
  if (now >= otp.expiresAt) return 'expired';
  return null;
}

/**
 * An OTP message's real text sealed for the store (AES-256-GCM under a key derived from the
 * installation's secret; a fresh IV each time): what a dispatcher that claims the message
 * back from the store sends, while the send's stored text has the code masked. Base64 of
 * IV (12 bytes), tag (16) and ciphertext.
 */
export function sealOtpText(secret: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(secret), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The text `sealOtpText` sealed; throws when the seal was altered or made under another secret. */
export function unsealOtpText(secret: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealKey(secret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

function sealKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('haberci otp text seal').digest();
}

/** The stand-in for a code in stored text: one `*` per digit (the same SMS count). */
export function otpMask(digits: number): string {
  return '*'.repeat(digits);
}
