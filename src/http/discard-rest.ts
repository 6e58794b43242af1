import type { IncomingMessage } from 'node:http';

/** What is read and dropped of a body answered before its end (bytes, and time). */
export const drainBound = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * A body answered before its end (too large, of the wrong shape, under a refused key): the
 * answer goes out at once, and the rest of the body is read and dropped as it arrives, so a
 * client still writing gets the answer instead of a broken pipe and can keep its
 * connection. Past the bound (bytes or time) the connection is closed: the client has its
 * answer by then, and a body that large is not worth reading.
 */
export function discardRest(request: IncomingMessage, bound = drainBound): void {
  if (request.complete || request.readableEnded) return;
  let read = 0;
  const cleanup = (): void => {
    clearTimeout(timer);
    request.removeListener('data', onData);
    request.removeListener('end', cleanup);
    request.removeListener('close', cleanup);
  };
  const cut = (): void => {
    cleanup();
    request.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > bound.bytes) cut();
  };
  const timer = setTimeout(cut, bound.ms);
  timer.unref();
  // A body read through a stream of ours (the budget's count of a chunked body) is still
  // piped into it: that stream, no longer read, would fill and pause the request, and the
  // rest would wait unread until the bound cut the connection.
  request.unpipe();
  request.on('data', onData);
  request.once('end', cleanup);
  request.once('close', cleanup);
  request.resume();
}
