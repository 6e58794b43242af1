import type { AdminResult } from '../main.js';

/** A command that cannot do what it was asked: `haberci: MESSAGE` on stderr, exit code 1. */
export class CommandFailed extends Error {}

/** The CLI's edge of the admin idiom: a failure ends the command with its message. */
export async function must<T>(result: AdminResult<T> | Promise<AdminResult<T>>): Promise<T> {
  const settled = await result;
  if (!settled.ok) throw new CommandFailed(settled.message);
  return settled.value;
}
