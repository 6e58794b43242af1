/**
 * The parts of concatenated submits kept in the store until the last one comes (docs/smpp.md,
 * "Concatenated submits"): the SMPP server's one way to them. Parts are kept per SMPP user,
 * so parts sent through binds to different processes, or across a restart, still make one
 * message; putting the text back together is the server's (src/smpp-server/assemblies.ts).
 */
import type { AssemblyPart, PartAdded, SmppPartStore } from '../../ports/smpp-parts.js';

export type { AssemblyPart, PartAdded };

export class ConcatenatedParts {
  constructor(private readonly store: SmppPartStore) {}

  /** Keeps a part under an id of its own; the message's parts, taken out, once it is complete; `full` past `maxPending` unfinished messages of the user. */
  add(part: Omit<AssemblyPart, 'partId'>, maxPending: number): Promise<PartAdded> {
    return this.store.addAssemblyPart(part, maxPending);
  }

  /** Puts unfinished parts back (their message refused for now); false when the message was started again meanwhile. */
  restore(parts: readonly AssemblyPart[]): Promise<boolean> {
    return this.store.restoreAssembly(parts);
  }

  /** The unfinished messages whose first part came before `before`, taken out (by one process), each its parts. */
  expired(before: number): Promise<AssemblyPart[][]> {
    return this.store.expiredAssemblies(before);
  }
}
