/**
 * Reading form posts (application/x-www-form-urlencoded: a repeated name is an array).
 * Fields are read as text and checked here; the services check again what they own.
 */
import { invalidAllowlistEntries, splitAllowlist } from '../domain/ip-allowlist.js';
import { parseDate } from '../domain/istanbul-time.js';

export type FormBody = Record<string, unknown>;

export function formOf(body: unknown): FormBody {
  return body !== null && typeof body === 'object' ? (body as FormBody) : {};
}

/**
 * Text the stores can hold: without NUL (PostgreSQL refuses it in text) and with a lone
 * surrogate (not UTF-8) replaced, as the API's schemas refuse both.
 */
function storable(value: string): string {
  return value
    .replaceAll('\u0000', '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** The field's text (the first, when repeated; storable); '' when absent. */
export function text(form: FormBody, name: string): string {
  const value = form[name];
  if (typeof value === 'string') return storable(value);
  if (Array.isArray(value) && typeof value[0] === 'string') return storable(value[0]);
  return '';
}

/**
 * A page's query string as one text per name: the first of a repeated name (`?q=a&q=b`),
 * storable, absent names undefined. Pages read their query through this, never as is.
 */
export function queryOf(query: unknown): Record<string, string | undefined> {
  const form = formOf(query);
  const out: Record<string, string | undefined> = {};
  for (const name of Object.keys(form)) {
    const value = form[name];
    if (typeof value === 'string' || (Array.isArray(value) && typeof value[0] === 'string'))
      out[name] = text(form, name);
  }
  return out;
}

/** Every value of a repeated field (check boxes). */
export function list(form: FormBody, name: string): string[] {
  const value = form[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function ticked(form: FormBody, name: string): boolean {
  return list(form, name).length > 0;
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
