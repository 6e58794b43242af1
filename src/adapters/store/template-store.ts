import type { Selectable } from 'kysely';
import { StorePart } from './store-part.js';
import { accountRow, removeAccountRow } from './account-rows.js';
import type { TemplatesTable } from './schema.js';
import type { Template, TemplateStore } from '../../ports/template-store.js';

/** Rows per multi-row INSERT and numbers per IN list: inside both dialects' parameter limits. */
const chunk = 1000;

function toTemplate(row: Selectable<TemplatesTable>): Template {
  return { id: row.id, accountId: row.account_id, name: row.name, text: row.text, createdAt: Number(row.created_at) };
}

function parseFields(text: string): Record<string, string> {
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

export class SqlTemplateStore extends StorePart implements TemplateStore {
  async create(template: Omit<Template, 'id'>, max: number): Promise<Template | 'duplicate' | 'full'> {
    return this.transact(async ({ db, sql }) => {
      // The account's row lock makes racing creations take turns, so the count holds.
      await db
        .selectFrom('accounts')
        .select('id')
        .where('id', '=', template.accountId)
        .$call((qb) => sql.forUpdate(qb))
        .executeTakeFirst();
      const { count } = await db
        .selectFrom('templates')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .where('account_id', '=', template.accountId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= max) return 'full';
      const row = await db
        .insertInto('templates')
        .values({
          account_id: template.accountId,
          name: template.name,
          text: template.text,
          created_at: template.createdAt,
        })
        .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toTemplate(row) : 'duplicate';
    });
  }

  async list(accountId: number): Promise<Template[]> {
    const rows = await this.db
      .selectFrom('templates')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toTemplate);
  }

  async find(accountId: number, templateId: number): Promise<Template | null> {
    const row = await accountRow(this.db, 'templates', accountId, templateId);
    return row ? toTemplate(row) : null;
  }

  async remove(accountId: number, templateId: number): Promise<boolean> {
    return removeAccountRow(this.db, 'templates', accountId, templateId);
  }

  async setContactFields(
    accountId: number,
    entries: readonly { number: string; fields: Readonly<Record<string, string>> }[],
    now: number,
  ): Promise<void> {
    if (entries.length === 0) return;
    await this.transact(async ({ db }) => {
      for (let i = 0; i < entries.length; i += chunk) {
        const rows = entries
          .slice(i, i + chunk)
          .map((e) => ({ account_id: accountId, number: e.number, fields: JSON.stringify(e.fields), updated_at: now }));
        await db
          .insertInto('contact_fields')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['account_id', 'number']).doUpdateSet((eb) => ({
              fields: eb.ref('excluded.fields'),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .execute();
      }
    });
  }

  async contactFields(accountId: number, numbers: readonly string[]): Promise<Map<string, Record<string, string>>> {
    const found = new Map<string, Record<string, string>>();
    for (let i = 0; i < numbers.length; i += chunk) {
      const rows = await this.db
        .selectFrom('contact_fields')
        .select(['number', 'fields'])
        .where('account_id', '=', accountId)
        .where('number', 'in', numbers.slice(i, i + chunk))
        .execute();
      for (const row of rows) found.set(row.number, parseFields(row.fields));
    }
    return found;
  }
}
