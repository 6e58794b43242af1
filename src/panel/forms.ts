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

/** The field's text (the first, when repeated); '' when absent. */
export function text(form: FormBody, name: string): string {
  const value = form[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return '';
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
