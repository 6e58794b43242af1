/**
 * Reading form posts (application/x-www-form-urlencoded: a repeated name is an array), query
 * strings and path ids. Everything is read as text the stores can hold and checked here;
 * the services check again what they own.
 */
import { invalidAllowlistEntries, splitAllowlist } from '../../domain/ip-allowlist.js';
import { parseDate } from '../../domain/istanbul-time.js';
import { NotFound } from './not-found.js';

/**
 * Text the stores can hold: without NUL (PostgreSQL refuses it in text) and with a lone
 * surrogate (not UTF-8) replaced, as the API's schemas refuse both.
 */
function storable(value: string): string {
  return value
    .replaceAll('\u0000', '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function valueOf(form: unknown, name: string): unknown {
  return form !== null && typeof form === 'object' ? (form as Record<string, unknown>)[name] : undefined;
}

/** A field of a posted form (or query): its text, the first when repeated, storable; '' when absent. */
export function field(form: unknown, name: string): string {
  const value = valueOf(form, name);
  if (typeof value === 'string') return storable(value);
  if (Array.isArray(value) && typeof value[0] === 'string') return storable(value[0]);
  return '';
}

/**
 * A page's query string as one text per name: the first of a repeated name (`?q=a&q=b`),
 * storable, absent names undefined. Pages read their query through this, never as is.
 */
export function queryOf(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (query === null || typeof query !== 'object') return out;
  for (const name of Object.keys(query)) {
    const value = valueOf(query, name);
    if (typeof value === 'string' || (Array.isArray(value) && typeof value[0] === 'string'))
      out[name] = field(query, name);
  }
  return out;
}

/** Every value of a repeated field (check boxes). */
export function list(form: unknown, name: string): string[] {
  const value = valueOf(form, name);
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function ticked(form: unknown, name: string): boolean {
  return list(form, name).length > 0;
}

/** The largest id of a 32-bit column (accounts, keys, groups, events, sender IDs, audit rows on PostgreSQL). */
const int32Max = 2_147_483_647;

/**
 * A path id: a whole number above zero that its column can hold, else the page does not
 * exist (NotFound, answered 404 like another account's id). `wide`: a 64-bit column (sends
 * and messages), up to 15 digits.
 */
export function idOf(raw: string, wide = false): number {
  const id = /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : 0;
  if (id === 0 || (!wide && id > int32Max)) throw new NotFound(`no such id ${raw}`);
  return id;
}

/** A paging cursor from the query: an id as idOf reads one, or none (the first page). */
export function cursorOf(raw: string | undefined, wide = false): number | undefined {
  if (raw === undefined) return undefined;
  try {
    return idOf(raw, wide);
  } catch {
    return undefined;
  }
}

/** A limit: empty is 0 (none). */
export function limit(raw: string): number | null {
  const v = raw.trim();
  if (v === '') return 0;
  if (!/^\d{1,9}$/.test(v)) return null;
  return Number(v);
}

export function allowlist(raw: string): { ok: string[] } | { bad: string } {
  const entries = splitAllowlist(raw.replace(/\s+/g, ','));
  const bad = invalidAllowlistEntries(entries);
  return bad.length > 0 ? { bad: bad.join(', ') } : { ok: entries };
}

/** A date YYYY-MM-DD, or null when empty. */
export function date(raw: string): { ok: string | null } | { bad: true } {
  const v = raw.trim();
  if (v === '') return { ok: null };
  return parseDate(v) ? { ok: v } : { bad: true };
}

export function httpUrl(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? raw.trim() : null;
  } catch {
    return null;
  }
}
