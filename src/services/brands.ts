/**
 * Resellers' brands (white label, docs/resellers.md "White label"): set by the provider
 * (`admin reseller brand`, the only way to set the host, which needs DNS) and by the
 * reseller's own panel users (name, colour, support, logo); read by the panel on every
 * request, by the request's host.
 *
 * Invariant of the host cache: an entry is at most `ttlMs` old, so a brand changed in
 * another process (the CLI, another server) shows within that time; a change made through
 * this service empties this process's cache at once. Unknown hosts are cached too (as
 * none), and the cache holds at most `maxHosts` entries: a flood of made-up Host headers
 * costs a query each, never memory.
 */
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Brand, BrandChange } from '../ports/brand-store.js';
import type { LogoType } from '../domain/brand.js';
import { checkBrandName, checkColor, checkHost, checkSupportText, logoTypeOf } from '../domain/brand.js';
import type { Actor } from './audit-log.js';
import { AuditLog } from './audit-log.js';
import { ok } from '../domain/result.js';
import { notFound, refused as refusal } from './admin-result.js';
import type { AdminResult } from './admin-result.js';
import { AccountSuspended } from './panel/account/account-changes.js';

export interface BrandView {
  account_id: number;
  name: string;
  host: string | null;
  color: string | null;
  support: string | null;
  logo_type: LogoType | null;
  updated_at: string;
}

export function brandView(brand: Brand): BrandView {
  return {
    account_id: brand.accountId,
    name: brand.name,
    host: brand.host,
    color: brand.color,
    support: brand.support,
    logo_type: brand.logoType,
    updated_at: new Date(brand.updatedAt).toISOString(),
  };
}

/** A change as typed: '' clears host, colour, support; `logo` the file's bytes. */
export interface BrandInput {
  name?: string;
  host?: string;
  color?: string;
  support?: string;
  logo?: Uint8Array;
  /** Removes the logo (a `logo` given with it wins). */
  removeLogo?: boolean;
}

export type BrandField = 'account' | 'name' | 'host' | 'color' | 'support' | 'logo';
export type BrandResult = { ok: true; brand: Brand } | { ok: false; field: BrandField; problem: string };

const refused = (field: BrandField, problem: string): BrandResult => ({ ok: false, field, problem });

export class BrandService {
  private readonly cache = new Map<string, { brand: Brand | null; until: number }>();
  private readonly audit: AuditLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlMs = 30_000,
    private readonly maxHosts = 1024,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  /** The brand served on `host` (lower-cased, without port), or null: the provider's own panel. */
  async forHost(host: string): Promise<Brand | null> {
    if (host === '') return null;
    const now = this.clock.now();
    const cached = this.cache.get(host);
    if (cached && cached.until > now) return cached.brand;
    const brand = await this.store.brands.byHost(host);
    if (this.cache.size >= this.maxHosts) this.cache.clear();
    this.cache.set(host, { brand, until: now + this.ttlMs });
    return brand;
  }

  async logo(accountId: number): Promise<{ type: LogoType; bytes: Buffer } | null> {
    return this.store.brands.logo(accountId);
  }

  /** A reseller's brand; null when it has set none. */
  async get(accountId: number): Promise<Brand | null> {
    return this.store.brands.get(accountId);
  }

  /**
   * Where a set-password link of a user of `accountId` points: its reseller's brand host when
   * the account is a customer of a reseller whose brand has one (the host its customers are
   * given, and the brand they signed up under), else null: the provider's panel.
   */
  async linkHost(accountId: number | null): Promise<string | null> {
    if (accountId === null) return null;
    const parentId = (await this.store.accounts.getAccount(accountId))?.parentId ?? null;
    return parentId === null ? null : ((await this.get(parentId))?.host ?? null);
  }

  /** A reseller's panel page: its brand (null: none yet), or null when the account is no reseller. */
  async ofReseller(accountId: number): Promise<{ brand: Brand | null } | null> {
    const account = await this.store.accounts.getAccount(accountId);
    if (account?.reseller !== true) return null;
    return { brand: await this.get(accountId) };
  }

  /**
   * `admin reseller brand`: with no change given, shows the brand. No such account is
   * ADM-NOT-FOUND; not a reseller, no brand yet or a field refused, ADM-REFUSED.
   */
  async command(accountId: number, input: BrandInput): Promise<AdminResult<BrandView>> {
    const reseller = await this.reseller(accountId);
    if (!reseller.ok) return reseller;
    if (Object.values(input).every((v) => v === undefined)) {
      const brand = await this.get(accountId);
      if (!brand) return refusal(`account ${accountId} has no brand yet (give --name)`);
      return ok(brandView(brand));
    }
    const result = await this.change(accountId, input, null);
    if (!result.ok) return refusal(result.problem);
    return ok(brandView(result.brand));
  }

  /**
   * Checks and saves a change of a reseller's brand. `actor`: the panel user making it (its
   * audit row is written with the change); null for the CLI, which writes its own.
   */
  async change(accountId: number, input: BrandInput, actor: Actor | null): Promise<BrandResult> {
    const account = await this.store.accounts.getAccount(accountId);
    if (!account) return refused('account', `no account with id ${accountId}`);
    if (account.reseller !== true)
      return refused(
        'account',
        `account ${accountId} is not a reseller (admin account update --id ${accountId} --reseller true)`,
      );
    // A suspended reseller's users change nothing of it from the panel; the provider still may.
    if (actor !== null && account.status === 'Suspended') throw new AccountSuspended();
    const change: BrandChange = {};
    for (const [field, raw, check] of [
      ['name', input.name, checkBrandName],
      ['support', input.support, checkSupportText],
    ] as const) {
      if (raw === undefined) continue;
      const checked = check(raw);
      if (!checked.ok) return refused(field, checked.problem);
      if (field === 'name') change.name = checked.value;
      else change.support = checked.value === '' ? null : checked.value;
    }
    if (input.color !== undefined) {
      const checked = input.color.trim() === '' ? null : checkColor(input.color);
      if (checked && !checked.ok) return refused('color', checked.problem);
      change.color = checked ? checked.value : null;
    }
    if (input.host !== undefined) {
      const checked = input.host.trim() === '' ? null : checkHost(input.host);
      if (checked && !checked.ok) return refused('host', checked.problem);
      change.host = checked ? checked.value : null;
    }
    if (input.removeLogo === true) change.logo = null;
    if (input.logo !== undefined) {
      const checked = logoTypeOf(input.logo);
      if (!checked.ok) return refused('logo', checked.problem);
      change.logo = { type: checked.value, bytes: input.logo };
    }
    const save = (store: Store) => store.brands.save(accountId, change, account.name, this.clock.now());
    const saved = actor
      ? await this.audit.change(actor, save, (done) =>
          done === 'host-taken'
            ? null
            : {
                action: 'reseller.brand',
                accountId,
                object: { type: 'brand', id: accountId },
                detail: {
                  ...(change.name !== undefined ? { name: change.name } : {}),
                  ...(change.color !== undefined ? { color: change.color } : {}),
                  ...(change.support !== undefined ? { support: change.support } : {}),
                  ...(change.logo !== undefined ? { logo: change.logo?.type ?? null } : {}),
                },
              },
        )
      : await save(this.store);
    if (saved === 'host-taken')
      return refused('host', `the host ${change.host ?? ''} is another brand's: a host serves one brand`);
    this.cache.clear();
    return { ok: true, brand: saved };
  }

  /** The same refusals as `change`'s of its account, in the same words. */
  private async reseller(accountId: number): Promise<AdminResult<true>> {
    const account = await this.store.accounts.getAccount(accountId);
    if (!account) return notFound(`no account with id ${accountId}`);
    if (account.reseller !== true)
      return refusal(`account ${accountId} is not a reseller (admin account update --id ${accountId} --reseller true)`);
    return ok(true);
  }
}
