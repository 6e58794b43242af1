import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { IysSettings } from '../ports/consent-store.js';
import { parseRetWords } from '../domain/iys.js';
import { ok } from '../domain/result.js';
import { notFound, refused, type AdminResult } from './admin-result.js';

/** What `iys configure` is given; the password arrives already sealed (or as a file reference). */
export interface IysConfigureInput {
  iysCode: string;
  brandCode: string;
  url?: string;
  username?: string;
  /** `sealed:<...>` (encrypted at rest) or `file:<path>` (read when used); never the password. */
  passwordSecret?: string;
  retWords?: string;
  /** Whether a commercial text that misses a rule (sender, opt-out) is refused on the API. */
  refuseTextRules?: boolean;
}

/** The account's İYS settings as printed: never the password, only how it is kept. */
export function iysSettingsView(s: IysSettings): Record<string, unknown> {
  return {
    account_id: s.accountId,
    iys_code: s.iysCode,
    brand_code: s.brandCode,
    url: s.url,
    username: s.username,
    password: s.passwordSecret === null ? null : s.passwordSecret.startsWith('file:') ? 'secret file' : 'encrypted',
    ret_words: parseRetWords(s.retWords),
    text_rules: s.refuseTextRules ? 'refuse' : 'warn',
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}

/** Provider commands for an account's İYS settings (`haberci admin iys configure`). */
export class IysAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async configure(accountId: number, input: IysConfigureInput): Promise<AdminResult<Record<string, unknown>>> {
    if (!(await this.store.accounts.getAccount(accountId))) return notFound(`no account ${accountId}`);
    if (!/^\d{1,20}$/.test(input.iysCode)) return refused('--iys-code must be digits');
    if (!/^\d{1,20}$/.test(input.brandCode)) return refused('--brand-code must be digits');
    if (input.url !== undefined && !/^https?:\/\/[^\s]+$/.test(input.url))
      return refused('--url must be an http:// or https:// address');
    const saved = await this.store.consents.saveSettings(
      accountId,
      {
        iysCode: input.iysCode,
        brandCode: input.brandCode,
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.username !== undefined ? { username: input.username } : {}),
        ...(input.passwordSecret !== undefined ? { passwordSecret: input.passwordSecret } : {}),
        ...(input.retWords !== undefined ? { retWords: input.retWords } : {}),
        ...(input.refuseTextRules !== undefined ? { refuseTextRules: input.refuseTextRules } : {}),
      },
      this.clock.now(),
    );
    return ok(iysSettingsView(saved));
  }

  async show(accountId: number): Promise<AdminResult<Record<string, unknown>>> {
    const settings = await this.store.consents.settingsOf(accountId);
    if (!settings) return notFound(`account ${accountId} has no İYS settings`);
    const sync = await this.store.consents.syncSummary(accountId);
    // Where the account's records stand with İYS (docs/iys.md, "The sync with İYS").
    return ok({
      ...iysSettingsView(settings),
      sync: {
        pending: sync.pending,
        synced: sync.synced,
        failed: sync.failed,
        from_iys: sync.fromIys,
        last_error: sync.lastError,
      },
    });
  }
}
