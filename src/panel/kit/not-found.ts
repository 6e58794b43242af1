/**
 * The panel's edge of the admin idiom (services/admin-result.ts): a service's ADM-NOT-FOUND
 * is the panel's "Page not found" (NotFound, answered by plugin.tsx); a refusal a page shows
 * is read from the returned failure's message.
 */
import type { AdminResult } from '../../services/admin-result.js';

/**
 * Not there, or not the caller's (another account's key, group, message or event): the
 * panel answers both with the same "Page not found", so the ids of other accounts cannot be
 * probed. Thrown by page code only (the services return ADM-NOT-FOUND).
 */
export class NotFound extends Error {}

/**
 * A service's answer on a page that shows no refusal: its value. Not there or not the
 * caller's is "Page not found"; another failure is a fault of the page (it checks its
 * fields first), answered as an error is.
 */
export async function found<T>(result: AdminResult<T> | Promise<AdminResult<T>>): Promise<T> {
  const settled = await orRefused(result);
  if (!settled.ok) throw new Error(settled.message);
  return settled.value;
}

/** A service's answer on a page that shows a refusal: "Page not found" for ADM-NOT-FOUND, else as it is. */
export async function orRefused<T>(result: AdminResult<T> | Promise<AdminResult<T>>): Promise<AdminResult<T>> {
  const settled = await result;
  if (!settled.ok && settled.code === 'ADM-NOT-FOUND') throw new NotFound(settled.message);
  return settled;
}
