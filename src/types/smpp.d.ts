/**
 * The parts of the `smpp` package (0.5.1, CommonJS, no bundled types) that haberci uses.
 * PDU fields are read as `unknown` and narrowed where they are used.
 */
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  /** Values a PDU field or TLV takes when we build one. */
  export type PduFieldValue = string | number | Buffer;
  export type PduOptions = Record<string, PduFieldValue | undefined>;

  export interface Pdu {
    readonly command: string;
    readonly command_id: number;
    readonly command_status: number;
    readonly sequence_number: number;
    isResponse(): boolean;
    response(options?: PduOptions): Pdu;
    /** The PDU's bytes as sent (command_length set). */
    toBuffer(): Buffer;
    /** Decoded body fields and TLVs, by their SMPP names. */
    readonly [field: string]: unknown;
  }

  export interface Session extends EventEmitter {
    readonly socket: Socket;
    send(pdu: Pdu, responseCallback?: (resp: Pdu) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    on(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: string, listener: (pdu: Pdu) => void): this;
    once(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
    once(event: 'error', listener: (error: Error) => void): this;
  }

  export interface Server extends NetServer {
    readonly sessions: Session[];
  }

  interface ParamDef {
    filter?: unknown;
    /** One of `types` (compared by identity). */
    type?: unknown;
  }

  /** The PDU class: built by its command name; its statics and prototype as smpp-wire.ts wraps them. */
  interface PduClass {
    new (command: string, options?: PduOptions): Pdu;
    /** Reads the next command_length off the stream: false when 4 bytes are not there yet. */
    commandLength(stream: unknown): number | false;
    prototype: { fromBuffer(this: Pdu, buffer: Buffer): unknown };
  }

  interface Smpp {
    createServer(listener: (session: Session) => void): Server;
    /** With `key` and `cert` (PEM), a TLS server. */
    createServer(options: { key?: Buffer; cert?: Buffer }, listener: (session: Session) => void): Server;
    connect(options: { host: string; port: number }): Session;
    PDU: PduClass;
    /** A session on a socket already open (the server side: net or TLS, accepted by us). */
    Session: new (options: { socket: Socket }) => Session;
    commands: Record<string, { params?: Record<string, ParamDef> }>;
    commandsById: Record<number, { command: string; params?: Record<string, ParamDef> } | undefined>;
    types: Record<'int8' | 'int16' | 'int32' | 'string' | 'cstring' | 'buffer', unknown>;
    tlvs: Record<string, ParamDef>;
    errors: Record<string, number>;
  }

  const smpp: Smpp;
  export default smpp;
}
