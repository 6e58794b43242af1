import type { DispatchWindow } from '../jobs/dispatch-window.js';
import type { DispatchHandoff, HandedMessage } from '../ports/dispatch-handoff.js';

/**
 * The hand-off from this thread's sends to a dispatcher whose window is `window` (shared
 * memory when the dispatcher runs in the dispatch thread): room is reserved in the window
 * inside the accepting transaction, and the committed messages go to `handOff`.
 */
export function windowHandoff(
  window: DispatchWindow,
  leaseMs: number,
  handOff: (messages: HandedMessage[]) => void,
): DispatchHandoff {
  return { leaseMs, reserve: (n) => window.reserve(n), release: (n) => window.release(n), handOff };
}
