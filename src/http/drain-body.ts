import type { IncomingMessage } from 'node:http';

/** What is read and dropped of a body answered before its end (bytes, and time). */
export const drainBound = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * Reads the rest of a request body and drops it, so that a client still writing gets the
 * answer instead of a broken pipe. True when the body ended within the bound; false when
 * the bound ran out first (the connection is then closed after the answer).
 */
export async function drainBody(request: IncomingMessage, bound = drainBound): Promise<boolean> {
  if (request.complete || request.readableEnded) return true;
  return new Promise((resolve) => {
    let read = 0;
    const finish = (ended: boolean): void => {
      clearTimeout(timer);
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
      request.removeListener('close', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > bound.bytes) finish(false);
    };
    const onEnd = (): void => finish(true);
    const onError = (): void => finish(false);
    const onClose = (): void => finish(request.complete);
    const timer = setTimeout(() => finish(false), bound.ms);
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
    request.resume();
  });
}
