/**
 * The one bounded wait of the tests: polls `check` until it returns a value that is not
 * `undefined`, `null` or `false`, and returns that value. On time-out it throws, naming
 * `what` and the last error `check` threw, so a failing test says what it waited for.
 * Use it instead of a fixed sleep: a test then waits as long as the machine needs and no
 * longer.
 */
export interface WaitOptions {
  /** Default 10 s: generous, since a loaded CI machine is slow and a pass returns early. */
  timeoutMs?: number;
  /** Default 20 ms. */
  intervalMs?: number;
}

const waitScale = Math.max(1, Number(process.env.HABERCI_TEST_WAIT_SCALE ?? '3') || 1);

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions = {},
): Promise<T> {
  // Every wait is stretched by HABERCI_TEST_WAIT_SCALE (default 3): a full run shares two
  // cores between several haberci processes, a browser and PostgreSQL, and a wait sized for
  // a quiet machine timed out there. A pass returns as early as before; only a failure is
  // reported later.
  const timeoutMs = (options.timeoutMs ?? 10_000) * waitScale;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Pauses for `ms`. Only for a test that must let time pass (a window or lease running out), never to wait for work. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
