/**
 * Resellers' brands (white label): what a reseller's panel shows on the host its customers
 * use. One brand per reseller account; a host belongs to one brand at most.
 */
import type { LogoType } from '../domain/brand.js';

export interface Brand {
  accountId: number;
  name: string;
  /** Lower-cased; null until the provider sets it. */
  host: string | null;
  /** #rrggbb; null: the panel's own colours. */
  color: string | null;
  /** The support contact every page of the brand shows; null: none. */
  support: string | null;
  /** The logo's type, null when there is none. */
  logoType: LogoType | null;
  updatedAt: number;
}

/** A change of a brand: each field given is set; `null` clears a field that may be empty. */
export interface BrandChange {
  name?: string;
  host?: string | null;
  color?: string | null;
  support?: string | null;
  logo?: { type: LogoType; bytes: Uint8Array } | null;
}

export interface BrandStore {
  get(accountId: number): Promise<Brand | null>;
  /** The brand whose host is `host` (lower-cased), or null. */
  byHost(host: string): Promise<Brand | null>;
  /** The logo of a brand, or null when it has none. */
  logo(accountId: number): Promise<{ type: LogoType; bytes: Buffer } | null>;
  /**
   * Creates the brand with `change` (its name required then: `defaultName` when the change
   * has none) or changes it; 'host-taken' when another brand holds the host (nothing written).
   */
  save(accountId: number, change: BrandChange, defaultName: string, now: number): Promise<Brand | 'host-taken'>;
}
