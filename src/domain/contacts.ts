import { isPlausibleNumber, normaliseNumber } from './recipients.js';

/** Most contact entries one /contacts/add request may carry (as many as a group send). */
export const maxContactEntries = 50_000;

/** Most characters of a group name. */
export const maxGroupNameLength = 100;

/**
 * The entries of a /contacts/add `mobile`: a string is split like `sentto` (commas,
 * semicolons, line breaks), a JSON array gives one entry per item (a number item is its
 * digits; any other item is kept as text and so counts as invalid). Entries are trimmed
 * and empty ones dropped. Null when the value is neither a string, a number nor an array.
 */
export function contactEntries(value: unknown): string[] | null {
  let items: string[];
  if (typeof value === 'string') items = value.split(/[,;\r\n]/);
  else if (typeof value === 'number') items = [String(value)];
  else if (Array.isArray(value))
    items = value.map((item: unknown) => (typeof item === 'string' ? item : (JSON.stringify(item) ?? '')));
  else return null;
  return items.map((e) => e.trim()).filter((e) => e !== '');
}

export interface ContactList {
  /** Distinct valid numbers after normalisation, in the order first seen. */
  numbers: string[];
  /** Entries that are not a plausible number after normalisation. */
  invalid: number;
}

/**
 * Contacts are normalised like recipients and must be plausible numbers (8 to 15 digits,
 * `90...` exactly 12). Repeats, `0532...` and `90532...` alike, count once.
 */
export function contactList(entries: readonly string[]): ContactList {
  const numbers = new Set<string>();
  let invalid = 0;
  for (const entry of entries) {
    const n = normaliseNumber(entry);
    if (isPlausibleNumber(n)) numbers.add(n);
    else invalid += 1;
  }
  return { numbers: [...numbers], invalid };
}

/** A group name as stored: surrounding whitespace removed. */
export function groupName(raw: string): string {
  return raw.trim();
}
