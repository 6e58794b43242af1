import type { z } from 'zod';
import type { ResultCode } from '../domain/result-codes.js';

/** `text[3]`, `sentto`: where in the body the issue is. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/** The value at `path` in the body as sent (zod's issues do not carry it). */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let value = body;
  for (const p of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[p];
  }
  return value;
}

const typeNames: Record<string, string> = {
  array: 'a JSON array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  object: 'an object',
  boolean: 'true or false',
};

/**
 * A result message that names the field and what is wrong with it, for the issues whose
 * code alone says too little (one code stands for several fields in the spec: TS-1026 is a
 * text too long and a group's sentto that is not an array). Undefined keeps the code's own
 * message (refinements, which carry their own detail when the code is not enough).
 */
export function issueMessage(error: z.ZodError, code: ResultCode, body: unknown): string | undefined {
  const issue = error.issues[0];
  if (!issue || issue.path.length === 0) return undefined;
  const field = fieldName(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(body, issue.path) === undefined
        ? `${field} is missing`
        : `${field} must be ${typeNames[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? `${field} is empty`
          : `${field} must be at least ${String(issue.minimum)} characters long`;
      if (issue.origin === 'array')
        return Number(issue.minimum) <= 1
          ? `${field} is empty`
          : `${field} must have at least ${String(issue.minimum)} items`;
      return `${field} must be at least ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string') return `${field} is longer than ${String(issue.maximum)} characters`;
      if (issue.origin === 'array') return `${field} has more than ${String(issue.maximum)} items`;
      return `${field} must be at most ${String(issue.maximum)}`;
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return code === 'TS-1033' ? `${field} is invalid` : undefined;
  }
}
