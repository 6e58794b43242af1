/**
 * `haberci ...` run in this process (src/cli/program.ts `runCli`): the same commander tree as
 * the binary, with stdout, stderr and the exit code captured and no process started. For
 * what a command decides (test/cli/) and for the setup of process suites; the binary itself
 * (its exits and output, one command family at a time) is test/process/admin-binary.test.ts.
 * Same shapes as test/helpers/admin-cli.ts.
 */
import { runCli } from '../../src/cli/program.js';
import { answerOf, refusalOf } from './admin-cli.js';
import type { BinRun } from './admin-cli.js';
import { childEnv } from './server-process.js';

export { storeFolder } from './admin-cli.js';
export type { BinRun } from './admin-cli.js';

/** Runs `haberci <args>` in-process; `code` is what the binary would exit with. */
export async function haberci(args: readonly string[]): Promise<BinRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    // The environment of a child process: without the developer's HABERCI_* settings.
    env: childEnv(),
  });
  return { code, stdout, stderr };
}

/** `haberci admin ...` that must succeed, in-process: one JSON object on stdout, nothing on stderr. */
export async function adminOk(args: readonly string[]): Promise<Record<string, unknown>> {
  return answerOf(await haberci(['admin', ...args]), args);
}

/** `haberci admin ...` that must fail, in-process: exit 1, nothing on stdout, one line on stderr (returned). */
export async function adminFails(args: readonly string[]): Promise<string> {
  return refusalOf(await haberci(['admin', ...args]), args);
}
