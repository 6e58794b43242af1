import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The glossary of docs/architecture.md ("Words") is obeyed by the code: a word retired
 * from `src/` stays retired. Each entry says what to write instead.
 */
const retired: { pattern: RegExp; instead: string; keep?: RegExp }[] = [
  {
    pattern: /\bissue \d+/i,
    instead: 'the tracker is outside the repository: say what the code does and why, or name the decision',
  },
  {
    pattern: /\b(CarrierReport|ReportStatus|onReport|applyReports|retryUnmatchedReports|awaitingReports)\b/,
    instead: "a carrier's report on a message is a receipt (CarrierReceipt, onReceipt, applyReceipts); report is the customer's /reports/ reads",
  },
  {
    pattern: /\b[Dd]elivery threads?\b/,
    instead: 'a thread that runs a job is a job thread; delivery is a webhook attempt',
    // The log lines serve prints keep their words: scripts read them.
    keep: /['`](a|the) delivery thread/,
  },
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = posix.join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('openapi-types.ts')) out.push(path);
  }
  return out;
}

describe('retired words stay out of src/', () => {
  const files = sourceFiles('src');

  for (const { pattern, instead, keep } of retired) {
    it(`no ${String(pattern)} (${instead})`, () => {
      assert.ok(files.length > 100, `expected the whole of src/, read ${files.length} files`);
      const found: string[] = [];
      for (const file of files) {
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (pattern.test(line) && !(keep?.test(line) ?? false)) found.push(`${file}:${i + 1}: ${line.trim()}`);
          });
      }
      assert.deepEqual(found, []);
    });
  }
});
