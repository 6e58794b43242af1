import { Redis } from 'ioredis';

/** The Redis of the tests that need one (CI sets it); '' when not set here. */
export const testRedisUrl = process.env.HABERCI_TEST_REDIS ?? '';

/**
 * Why a Redis test cannot run here, or false when it can: HABERCI_TEST_REDIS unset (as
 * HABERCI_TEST_DATABASE for PostgreSQL), or the server it names not answering a PING
 * within a second.
 */
export async function redisSkipReason(): Promise<string | false> {
  if (testRedisUrl === '') return 'Redis suite skipped: set HABERCI_TEST_REDIS=redis://... to run it';
  const client = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return false;
  } catch (error) {
    return `Redis suite skipped: ${testRedisUrl} does not answer (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    client.disconnect();
  }
}
