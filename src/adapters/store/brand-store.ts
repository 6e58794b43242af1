import type { Selectable } from 'kysely';
import { StorePart } from './store-part.js';
import type { BrandsTable } from './schema.js';
import type { Brand, BrandChange, BrandStore } from '../../ports/brand-store.js';
import type { LogoType } from '../../domain/brand.js';
import { isUniqueViolation } from './directory-store.js';

const logoTypes: readonly LogoType[] = ['image/png', 'image/jpeg', 'image/svg+xml'];
const logoTypeOf = (value: string | null): LogoType | null => logoTypes.find((t) => t === value) ?? null;

type BrandRow = Omit<Selectable<BrandsTable>, 'logo'>;
const brandColumns = ['account_id', 'name', 'host', 'color', 'support', 'logo_type', 'updated_at'] as const;

function toBrand(row: BrandRow): Brand {
  return {
    accountId: row.account_id,
    name: row.name,
    host: row.host,
    color: row.color,
    support: row.support,
    logoType: logoTypeOf(row.logo_type),
    updatedAt: Number(row.updated_at),
  };
}

/** The columns a change sets (the logo as base64 text, which both dialects keep alike). */
function columnsOf(change: BrandChange): Partial<Omit<BrandsTable, 'account_id' | 'updated_at'>> {
  return {
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.host !== undefined ? { host: change.host } : {}),
    ...(change.color !== undefined ? { color: change.color } : {}),
    ...(change.support !== undefined ? { support: change.support } : {}),
    ...(change.logo !== undefined
      ? {
          logo: change.logo === null ? null : Buffer.from(change.logo.bytes).toString('base64'),
          logo_type: change.logo === null ? null : change.logo.type,
        }
      : {}),
  };
}

export class SqlBrandStore extends StorePart implements BrandStore {
  async get(accountId: number): Promise<Brand | null> {
    const row = await this.db
      .selectFrom('brands')
      .select(brandColumns)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? toBrand(row) : null;
  }

  async byHost(host: string): Promise<Brand | null> {
    const row = await this.db.selectFrom('brands').select(brandColumns).where('host', '=', host).executeTakeFirst();
    return row ? toBrand(row) : null;
  }

  async logo(accountId: number): Promise<{ type: LogoType; bytes: Buffer } | null> {
    const row = await this.db
      .selectFrom('brands')
      .select(['logo', 'logo_type'])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    const type = logoTypeOf(row?.logo_type ?? null);
    if (!row || row.logo === null || type === null) return null;
    return { type, bytes: Buffer.from(row.logo, 'base64') };
  }

  async save(accountId: number, change: BrandChange, defaultName: string, now: number): Promise<Brand | 'host-taken'> {
    try {
      return await this.transact(async ({ db }) => {
        if (change.host !== undefined && change.host !== null) {
          const holder = await db
            .selectFrom('brands')
            .select('account_id')
            .where('host', '=', change.host)
            .executeTakeFirst();
          if (holder && holder.account_id !== accountId) return 'host-taken' as const;
        }
        const columns = columnsOf(change);
        const row = await db
          .insertInto('brands')
          .values({ name: defaultName, ...columns, account_id: accountId, updated_at: now })
          .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...columns, updated_at: now }))
          .returning(brandColumns)
          .executeTakeFirstOrThrow();
        return toBrand(row);
      });
    } catch (error) {
      // Two brands given one host at once: the unique index lets one through.
      if (isUniqueViolation(error)) return 'host-taken';
      throw error;
    }
  }
}
