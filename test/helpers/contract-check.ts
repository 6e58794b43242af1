import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { endpoints } from '../../src/endpoints/index.js';
import { openApiDocument } from '../../src/http/openapi.js';
import type { JsonObject } from '../../src/http/openapi.js';

/**
 * The suite's check that every answer matches the contract: each response a test receives
 * through the harness, on a path of the document, must have a status the document declares
 * for it and a body its schema accepts. The document's objects are closed, so a field a
 * handler renames, retypes, leaves out or adds fails the test that saw it.
 * Schemas are compiled once per process, on first use.
 */
const document = openApiDocument(endpoints, '0.0.0');
const paths = document.paths as Record<
  string,
  { post: { responses: Record<string, { content: { 'application/json': { schema: JsonObject } } }> } }
>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();

function validatorFor(path: string, status: number): ValidateFunction | null {
  const key = `${path} ${status}`;
  const known = compiled.get(key);
  if (known) return known;
  const response = paths[path]?.post.responses[String(status)];
  if (!response) return null;
  const validate = ajv.compile(response.content['application/json'].schema);
  compiled.set(key, validate);
  return validate;
}

/** Throws when a POST answer on a documented path does not match the document. */
export function checkAgainstContract(method: string, path: string, status: number, raw: string): void {
  if (method !== 'POST' || !(path in paths)) return;
  const validate = validatorFor(path, status);
  if (!validate)
    throw new Error(
      `contract: POST ${path} answered HTTP ${status}, which the document does not declare; body ${raw.slice(0, 300)}`,
    );
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new Error(
      `contract: POST ${path} answered HTTP ${status} with a body that is not JSON: ${raw.slice(0, 300)}`,
    );
  }
  if (!validate(body)) {
    throw new Error(
      `contract: POST ${path} HTTP ${status} body does not match the document: ${ajv.errorsText(validate.errors)}; body ${raw.slice(0, 500)}`,
    );
  }
}
