/**
 * Body size limits, each sized so that the endpoint's documented maximum fits in the
 * longest form the spec allows, and no more (docs/decisions.md, Body size).
 */

/**
 * One number in its longest allowed form (`0090 (532) 123 45 67`, 20 characters), its
 * JSON quotes and separator, and room for stray spaces.
 */
const bytesPerNumber = 32;
/** One text of 2,000 characters, each written as a six-byte JSON escape (`\u00e7`). */
const bytesPerText = 2000 * 6;
/** The other fields of a request (key, title, schedule, language). */
const otherFields = 4 * 1024;

/** Endpoints with a handful of short fields. */
export const smallBodyLimit = 64 * 1024;

/** Endpoints that take up to `numbers` numbers and one text. */
export function numbersBodyLimit(numbers: number): number {
  return numbers * bytesPerNumber + bytesPerText + otherFields;
}
