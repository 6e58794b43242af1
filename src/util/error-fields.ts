/**
 * How an error is written to the log. A fault of a neighbour (the database or a peer
 * ended a connection, refused a statement: the driver gives such errors a string `code`,
 * as `57P01` or `ECONNREFUSED`) is one line, its message and code: its stack says nothing
 * of ours and a burst of them would flood the log. Anything else is a bug, logged whole.
 */
export function errorFields(error: unknown): unknown {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') {
      // Ours (a store fault) carry the driver's error as their cause: its message is the detail.
      const cause = error.cause instanceof Error ? { cause: error.cause.message } : {};
      return { type: error.name, message: error.message, code, ...cause };
    }
    if (
      error.message === 'Connection terminated unexpectedly' ||
      /^timeout exceeded when trying to connect$/i.test(error.message)
    )
      return { type: error.name, message: error.message };
  }
  return error;
}
