/**
 * Saved texts with named placeholders (`{{name}}`, `{{code}}`), filled per recipient from
 * the fields of the account's contact (docs/decisions.md, "Templates").
 */

/** Most templates one account keeps. */
export const maxTemplatesPerAccount = 500;
/** Most characters of a template's name. */
export const maxTemplateNameLength = 100;
/** Most fields one contact carries, and the bounds of a field's name and value. */
export const maxContactFields = 20;
export const maxFieldNameLength = 32;
export const maxFieldValueLength = 200;
/** Most `contacts` entries (numbers with fields) of one /contacts/add request. */
export const maxFieldedContacts = 10_000;

/** A placeholder: a name of letters, digits and `_` between double braces, spaces allowed inside. */
const placeholder = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const fieldNamePattern = /^[A-Za-z0-9_]+$/;

export type ContactFields = Readonly<Record<string, string>>;

/** The distinct placeholder names of a text, in the order first used. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(placeholder)].map((m) => m[1] ?? ''))];
}

/** Whether `name` can be a field (and so a placeholder) name. */
export function isFieldName(name: string): boolean {
  return name.length >= 1 && name.length <= maxFieldNameLength && fieldNamePattern.test(name);
}

/** Why a template text cannot be saved, or null: a placeholder whose name is too long. */
export function templateTextIssue(text: string): string | null {
  const long = placeholdersOf(text).find((name) => !isFieldName(name));
  return long === undefined
    ? null
    : `placeholder {{${long.slice(0, 40)}}} has a name over ${maxFieldNameLength} characters`;
}

/**
 * The text with every placeholder replaced by the field of that name, or the first name
 * the fields lack (a send is refused rather than sent with a gap: docs/decisions.md).
 */
export function fillTemplate(text: string, fields: ContactFields | undefined): { text: string } | { missing: string } {
  let missing: string | null = null;
  const filled = text.replace(placeholder, (whole, name: string) => {
    const value = fields?.[name];
    if (value === undefined) {
      missing ??= name;
      return whole;
    }
    return value;
  });
  return missing === null ? { text: filled } : { missing };
}

/**
 * Why a contact's `fields` object cannot be stored, or null. Values are strings or finite
 * numbers (kept as their text); at most 20 names of letters, digits and `_`.
 */
export function contactFieldsIssue(fields: unknown): string | null {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return 'fields must be an object';
  const entries = Object.entries(fields);
  if (entries.length > maxContactFields) return `at most ${maxContactFields} fields per contact`;
  for (const [name, value] of entries) {
    if (!isFieldName(name))
      return `field names are 1 to ${maxFieldNameLength} letters, digits or _ (${JSON.stringify(name.slice(0, 40))})`;
    if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string')
      return `field ${name} must be a string or a number`;
    const text = String(value);
    if (text.length > maxFieldValueLength) return `field ${name} is longer than ${maxFieldValueLength} characters`;
    // What neither store keeps as sent (src/endpoints/fields.ts, unstorableText).
    if (text.includes('\u0000') || /\p{Cs}/u.test(text))
      return `field ${name} contains a character that cannot be stored`;
  }
  return null;
}

/** A valid `fields` object as stored: every value its text. */
export function contactFieldsOf(fields: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
}
