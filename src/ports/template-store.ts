/** Saved texts of an account and the fields of its contacts that fill them (migration 0055). */
export interface Template {
  id: number;
  accountId: number;
  name: string;
  text: string;
  createdAt: number;
}

export interface TemplateStore {
  /**
   * Saves the template unless the account has one of this name ('duplicate') or already
   * keeps `max` templates ('full'), decided under the account's row lock.
   */
  create(template: Omit<Template, 'id'>, max: number): Promise<Template | 'duplicate' | 'full'>;
  /** The account's templates, newest first. */
  list(accountId: number): Promise<Template[]>;
  find(accountId: number, templateId: number): Promise<Template | null>;
  remove(accountId: number, templateId: number): Promise<boolean>;
  /** Sets (replaces) the fields of each number of the account. */
  setContactFields(
    accountId: number,
    entries: readonly { number: string; fields: Readonly<Record<string, string>> }[],
    now: number,
  ): Promise<void>;
  /** The fields of those of `numbers` that have any, by number. */
  contactFields(accountId: number, numbers: readonly string[]): Promise<Map<string, Record<string, string>>>;
}
