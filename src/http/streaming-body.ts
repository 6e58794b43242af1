import { StringDecoder } from 'node:string_decoder';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Failure } from '../domain/result.js';
import { FlatJsonError, FlatJsonParser } from './flat-json.js';
import type { FlatJsonLimits } from './flat-json.js';

/** A body refused while it was read: answered with the endpoint's invalid-body code and this message. */
export class BodyRefused extends Error {
  readonly statusCode = 400;
  constructor(
    message: string,
    /** The member at fault, when the fault is in one (its own code may answer). */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** A body over its endpoint's limit. */
export class BodyTooLarge extends Error {
  readonly statusCode = 413;
  constructor(readonly limit: number) {
    super(`body over ${limit} bytes`);
  }
}

/** The key in the body was refused before the rest of the body was read. */
export class KeyRefused extends Error {
  readonly statusCode = 403;
  constructor(readonly failure: Failure) {
    super('key refused');
  }
}

export interface StreamingBodyOptions {
  limits: FlatJsonLimits;
  bodyLimit: number;
  /** The checks that need only the key (null: admitted). Run once, as soon as api_key is read. */
  admitKey(apiKey: string, request: FastifyRequest): Promise<Failure | null>;
}

/**
 * A Fastify content-type parser for large JSON bodies: the body is parsed as it arrives
 * (FlatJsonParser), and the key is checked as soon as it is read, while the rest of the
 * body waits unread; a refused key is answered without reading the rest.
 */
export function streamingJsonParser(options: StreamingBodyOptions) {
  return (
    request: FastifyRequest,
    payload: IncomingMessage,
    done: (error: Error | null, body?: unknown) => void,
  ): void => {
    const decoder = new StringDecoder('utf8');
    let received = 0;
    let settled = false;
    let keyCheck: Promise<Failure | null> | null = null;
    let keyChecked = false;
    const parser = new FlatJsonParser(options.limits, (name, value) => {
      if (name === 'api_key' && typeof value === 'string' && keyCheck === null)
        keyCheck = options.admitKey(value, request);
    });

    const settle = (error: Error | null, body?: unknown): void => {
      if (settled) return;
      settled = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      done(error, body);
    };
    const refusedShape = (error: unknown): Error =>
      error instanceof FlatJsonError
        ? new BodyRefused(`The body was refused while it was read: ${error.message}`, error.field)
        : (error as Error);

    /** Reading waits while the key is checked; the answer decides whether it goes on. */
    const awaitKey = (): void => {
      const check = keyCheck;
      if (!check || keyChecked) return;
      keyChecked = true;
      payload.pause();
      check.then(
        (failure) => {
          if (failure) settle(new KeyRefused(failure));
          else payload.resume();
        },
        (error: unknown) => settle(error as Error),
      );
    };

    function onData(chunk: Buffer): void {
      received += chunk.length;
      if (received > options.bodyLimit) return settle(new BodyTooLarge(options.bodyLimit));
      try {
        parser.write(decoder.write(chunk));
      } catch (error) {
        return settle(refusedShape(error));
      }
      awaitKey();
    }
    function onEnd(): void {
      let body: unknown;
      try {
        parser.write(decoder.end());
        body = parser.end();
      } catch (error) {
        return settle(refusedShape(error));
      }
      // A key read in the last chunk: its check has not started its wait yet.
      const check = keyCheck;
      if (check === null) return settle(null, body);
      check.then(
        (failure) => settle(failure ? new KeyRefused(failure) : null, body),
        (error: unknown) => settle(error as Error),
      );
    }
    function onError(error: Error): void {
      settle(error);
    }

    const declared = Number(request.headers['content-length']);
    if (declared > options.bodyLimit) return settle(new BodyTooLarge(options.bodyLimit));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  };
}
