/**
 * A store write that must not be lost to a passing database fault (a connection ended by
 * a restart or failover, a moment with no connection to be had): it is tried again, with
 * a growing pause, until it succeeds or `budgetMs` has passed. The caller's fallback after
 * that (a lease that runs out, a receipt the SMSC delivers again) still holds; this only
 * keeps a blip of a few seconds from reaching it.
 */
export async function retryStoreWrite<T>(
  write: () => Promise<T>,
  budgetMs: number,
  onRetry: (error: unknown, attempt: number) => void,
): Promise<T> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const pause = Math.min(2000, 50 * 2 ** Math.min(attempt - 1, 10));
      if (performance.now() - started + pause > budgetMs) throw error;
      onRetry(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
