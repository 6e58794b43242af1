/** The parts of customers' concatenated submits over SMPP, kept until the message's parts are all received (docs/smpp.md, "Concatenated submits"). */

/** One part of a concatenated submit, kept until the message's parts are all received. */
export interface AssemblyPart {
  smppUserId: number;
  sourceAddr: string;
  destination: string;
  dataCoding: number;
  reference: number;
  total: number;
  seq: number;
  /** The part's short_message after its UDH. */
  payload: Buffer;
  /** The UDH announced the Turkish single shift table. */
  turkish: boolean;
  /** The message_id the part was (or is to be) answered with. */
  partId: string;
  /** registered_delivery asked for a receipt. */
  receipt: boolean;
  receivedAt: number;
  /** Its schedule_delivery_time: not before this instant; null: none. */
  scheduledAt: number | null;
}

export type PartAdded =
  /** More parts to come: answer with this id (the first one given, for a part sent again). */
  | { kind: 'pending'; partId: string }
  /** This was the last part: every part, in sequence order, taken out of the store. */
  | { kind: 'complete'; parts: AssemblyPart[] }
  /** The user has `maxPending` unfinished messages already. */
  | { kind: 'full' };

export interface SmppPartStore {
  /**
   * Keeps a part of a concatenated submit, giving it its own id from the id space of sends
   * and messages; answers whether the message is complete (and takes its parts out).
   */
  addAssemblyPart(part: Omit<AssemblyPart, 'partId'>, maxPending: number): Promise<PartAdded>;
  /** Puts unfinished parts back (a complete message refused for now); false when the message was started again meanwhile. */
  restoreAssembly(parts: readonly AssemblyPart[]): Promise<boolean>;
  /** The unfinished messages whose first part came before `before`, taken out of the store, each its parts. */
  expiredAssemblies(before: number): Promise<AssemblyPart[][]>;
}
