import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BodyRefused, BodyTooLarge } from './streaming-body.js';

/** Numbers and texts of a 50,000-pair mixed send, as repeated fields, and a few others. */
const maxFields = 2 * 50_000 + 16;

/**
 * `multipart/form-data` bodies ("form data is also accepted"), read into the same fields a
 * urlencoded form gives: text parts become string fields, a repeated name an array. File
 * parts are read and dropped, never kept in memory or written to disk. The whole body is
 * held to the route's limit by its declared Content-Length (Node reads no further than
 * that), so a multipart body without one is refused.
 */
export async function registerMultipart(app: FastifyInstance, defaultLimit: number): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.headers['content-type']?.toLowerCase().startsWith('multipart/')) return done();
    const limit = request.routeOptions.bodyLimit ?? defaultLimit;
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    if (Number.isNaN(declared)) return done(new BodyRefused('A multipart body must declare its Content-Length'));
    if (declared > limit) return done(new BodyTooLarge(limit));
    done();
  });
  await app.register(multipart, {
    limits: {
      fieldNameSize: 128,
      fieldSize: 4 * 1024 * 1024,
      fields: maxFields,
      parts: maxFields + 64,
      files: 64,
      headerPairs: 64,
    },
  });
  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    const fields = new Map<string, string | string[]>();
    try {
      await readFields(request, fields);
    } catch (error) {
      // Limits keep their own status (413); a body busboy cannot read (no boundary, cut
      // off, malformed parts) is the client's, answered with the invalid-body code.
      if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error;
      throw new BodyRefused(
        `The multipart body cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // fromEntries defines own properties: a field named __proto__ is only a field.
    request.body = Object.fromEntries(fields);
  });
}

/** Text parts into `fields` (a repeated name an array); file parts are read and dropped. */
async function readFields(request: FastifyRequest, fields: Map<string, string | string[]>): Promise<void> {
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      part.file.resume();
      continue;
    }
    const value = typeof part.value === 'string' ? part.value : String(part.value);
    const earlier = fields.get(part.fieldname);
    if (earlier === undefined) fields.set(part.fieldname, value);
    else if (Array.isArray(earlier)) earlier.push(value);
    else fields.set(part.fieldname, [earlier, value]);
  }
}
