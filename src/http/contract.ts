import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Endpoint } from '../endpoints/endpoint.js';
import { packageVersion } from '../version.js';
import { openApiDocument } from './openapi.js';
import type { CapturedExamples } from './openapi.js';
import { referencePage } from './reference-page.js';
import { ServerStopping } from './drain-on-stop.js';
import { stopping, unexpected } from './api-answers.js';

/**
 * GET /openapi.json and GET /docs (docs/interfaces: the API contract). Both are built once,
 * when the server starts, from the endpoint table it serves: they cannot differ from it.
 * The page is rendered here from the document, with no script and nothing fetched, so it
 * works offline.
 *
 * A surface of its own beside the API (app.ts): it takes GET only and reads no body, so
 * its one failure is a bug or the drain, answered as the API answers them. A wrong method
 * on its paths falls through to the API's not-found answer, as every unclaimed path does.
 */
export async function contractPlugin(app: FastifyInstance, options: { table: readonly Endpoint[] }): Promise<void> {
  const { json, page } = contractOf(options.table);
  app.setErrorHandler(async (error, request, reply) =>
    error instanceof ServerStopping
      ? stopping(reply, 'result')
      : unexpected(error, request, reply, 'result', 'SRV-ERR'),
  );
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json));
  app.get('/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      // Never framed (clickjacking): frame-ancestors for browsers that read CSP, X-Frame-Options for the rest.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .send(page),
  );
}

/** The document and page of a table: derived from it alone, so built once per process (tests build many apps). */
const built = new WeakMap<readonly Endpoint[], { json: string; page: string }>();
function contractOf(table: readonly Endpoint[]): { json: string; page: string } {
  let found = built.get(table);
  if (!found) {
    const document = openApiDocument(table, packageVersion(), committedExamples());
    found = { json: JSON.stringify(document), page: referencePage(document) };
    built.set(table, found);
  }
  return found;
}

/** The captured examples shipped with the package (this file runs as dist/src/http/contract.js). */
export function committedExamples(): CapturedExamples {
  try {
    return JSON.parse(
      readFileSync(new URL('../../../docs/openapi-examples.json', import.meta.url), 'utf8'),
    ) as CapturedExamples;
  } catch {
    return {};
  }
}
