import type { Result } from '../../src/domain/result.js';

/** The value of a result a test expects to succeed; a failure fails the test with its code and message. */
export async function valueOf<T, C extends string>(result: Result<T, C> | Promise<Result<T, C>>): Promise<T> {
  const settled = await result;
  if (!settled.ok) throw new Error(`expected success, got ${settled.code}: ${settled.message ?? ''}`);
  return settled.value;
}

/** The failure of a result a test expects to fail; a success fails the test. */
export async function failureOf<T, C extends string>(
  result: Result<T, C> | Promise<Result<T, C>>,
): Promise<{ code: C; message: string }> {
  const settled = await result;
  if (settled.ok) throw new Error('expected a failure, got a success');
  return { code: settled.code, message: settled.message ?? '' };
}
