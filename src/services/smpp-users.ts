import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { SmppUser } from '../ports/smpp-users.js';
import { ok } from '../domain/result.js';
import { notFound, refused, type AdminResult } from './admin-result.js';
import { hashPassword } from './passwords.js';

/** SMPP 3.4 field sizes (C-Octet Strings): system_id 16 octets, password 9, each with its NUL. */
export const smppLimits = { systemId: 15, password: 8 } as const;

/** The defaults of `smpp-user create` (docs/smpp.md, "Customers over SMPP"). */
export const smppUserDefaults = { maxBinds: 4, windowSize: 10, maxSubmitsPerSecond: 100 } as const;

export interface SmppUserRequest {
  keyId: number;
  systemId: string;
  password: string;
  maxBinds?: number;
  windowSize?: number;
  maxSubmitsPerSecond?: number;
}

/** An SMPP user as the admin commands print it: never the password nor its hash. */
export function smppUserView(u: SmppUser): {
  id: number;
  system_id: string;
  key_id: number;
  account_id: number;
  max_binds: number;
  window: number;
  max_submits_per_second: number;
  disabled: boolean;
  created_at: string;
} {
  return {
    id: u.id,
    system_id: u.systemId,
    key_id: u.keyId,
    account_id: u.accountId,
    max_binds: u.maxBinds,
    window: u.windowSize,
    max_submits_per_second: u.maxSubmitsPerSecond,
    disabled: u.disabledAt !== null,
    created_at: new Date(u.createdAt).toISOString(),
  };
}

/** Printable ASCII, as SMPP clients send system_id and password. */
const printable = /^[\x21-\x7e]+$/;

/** The provider's commands on SMPP users (`haberci admin smpp-user`). */
export class SmppUserAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async create(r: SmppUserRequest): Promise<AdminResult<ReturnType<typeof smppUserView>>> {
    if (!printable.test(r.systemId) || r.systemId.length > smppLimits.systemId)
      return refused(`--system-id must be 1 to ${smppLimits.systemId} printable ASCII characters, no spaces`);
    if (!printable.test(r.password) || r.password.length > smppLimits.password)
      return refused(`--password must be 1 to ${smppLimits.password} printable ASCII characters, no spaces`);
    const key = await this.store.keys.getKey(r.keyId);
    if (!key) return notFound(`no key with id ${r.keyId}`);
    if (await this.store.smppUsers.credentials(r.systemId))
      return refused(`an SMPP user with system_id ${r.systemId} exists already`);
    const user = await this.store.smppUsers.createUser(
      {
        keyId: key.id,
        accountId: key.accountId,
        systemId: r.systemId,
        passwordHash: await hashPassword(r.password),
        maxBinds: r.maxBinds ?? smppUserDefaults.maxBinds,
        windowSize: r.windowSize ?? smppUserDefaults.windowSize,
        maxSubmitsPerSecond: r.maxSubmitsPerSecond ?? smppUserDefaults.maxSubmitsPerSecond,
      },
      this.clock.now(),
    );
    return ok(smppUserView(user));
  }

  async list(accountId: number): Promise<{ smpp_users: ReturnType<typeof smppUserView>[] }> {
    return { smpp_users: (await this.store.smppUsers.users(accountId)).map(smppUserView) };
  }

  async disable(id: number): Promise<AdminResult<ReturnType<typeof smppUserView>>> {
    const user = await this.store.smppUsers.disableUser(id, this.clock.now());
    if (!user) return notFound(`no SMPP user with id ${id}`);
    return ok(smppUserView(user));
  }
}
