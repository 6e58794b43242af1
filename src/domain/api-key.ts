import { endOfLocalDay } from './istanbul-time.js';

/** States as stored; Expired is never stored, it is derived from the clock. */
export type StoredKeyState = 'Active' | 'Paused' | 'Revoked';
export type KeyState = StoredKeyState | 'Expired';

export interface KeyLifecycle {
  state: StoredKeyState;
  /** `YYYY-MM-DD`; the key is valid until the end of that Istanbul day. */
  expiresOn: string | null;
  /** Set on a key replaced by rotation with keep-old: valid until this instant. */
  validUntil: number | null;
}

/** The state a key is in at an instant. */
export function keyStateAt(key: KeyLifecycle, now: number): KeyState {
  if (key.state === 'Revoked') return 'Revoked';
  if (key.validUntil !== null && now >= key.validUntil) return 'Revoked';
  if (key.expiresOn !== null) {
    const end = endOfLocalDay(key.expiresOn);
    if (end !== null && now >= end) return 'Expired';
  }
  return key.state;
}

export type KeyAction = 'pause' | 'reactivate' | 'revoke';

/** The key state machine of the spec: revoked is final, expired keys cannot be moved back. */
export function applyKeyAction(current: KeyState, action: KeyAction): StoredKeyState | { refused: string } {
  if (current === 'Revoked') return { refused: 'a revoked key cannot be changed' };
  switch (action) {
    case 'revoke':
      return 'Revoked';
    case 'pause':
      if (current !== 'Active') return { refused: `only an Active key can be paused (the key is ${current})` };
      return 'Paused';
    case 'reactivate':
      if (current !== 'Paused') return { refused: `only a Paused key can be reactivated (the key is ${current})` };
      return 'Active';
  }
}

/** How long an old key stays valid after a rotation with the keep-old option. */
export const keepOldKeyMs = 24 * 3600_000;
