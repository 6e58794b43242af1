import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The limits of the docs, kept by a test rather than by hand: docs/benchmarks.md holds the
 * current figures only (at most 400 lines; what they replace goes to benchmarks-history.md),
 * the Contents of docs/decisions.md names every `##` section of the page in its order, and
 * every link to a heading of a doc lands on one.
 */
const benchmarksMaxLines = 400;

const read = (path: string): string => readFileSync(path, 'utf8');

interface Heading {
  level: number;
  text: string;
  anchor: string;
  line: number;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingsOf(markdown: string): Heading[] {
  const out: Heading[] = [];
  const seen = new Map<string, number>();
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6}) (.+?)\s*#*\s*$/.exec(line);
    if (!m?.[1] || m[2] === undefined) return;
    const base = m[2]
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ level: m[1].length, text: m[2], anchor: n === 0 ? base : `${base}-${n}`, line: i + 1 });
  });
  return out;
}

/** Lines as `wc -l` counts them: the last line's newline ends it, it does not start another. */
const lineCount = (text: string): number => text.replace(/\n$/, '').split('\n').length;

describe('docs stay within their limits', () => {
  it(`docs/benchmarks.md has at most ${benchmarksMaxLines} lines (older figures go to benchmarks-history.md)`, () => {
    const lines = lineCount(read('docs/benchmarks.md'));
    assert.ok(
      lines <= benchmarksMaxLines,
      `docs/benchmarks.md has ${lines} lines: move superseded figures and ledgers to docs/benchmarks-history.md`,
    );
  });

  it('the Contents of docs/decisions.md names every ## section, in order, and each of its links lands on a heading', () => {
    const doc = read('docs/decisions.md');
    const headings = headingsOf(doc);
    const sections = headings.filter((h) => h.level === 2 && h.text !== 'Contents');
    assert.ok(sections.length > 20, `expected the page's sections, read ${sections.length}`);
    const contents = /^## Contents\n([\s\S]*?)^## /m.exec(doc)?.[1];
    assert.ok(contents !== undefined, 'docs/decisions.md has no "## Contents" section');

    // A line of the list starts with a link to its section; the links after it are its parts.
    const entries = [...contents.matchAll(/^- \[([^\]]+)\]\(#([^)]+)\)/gm)].map((m) => m[2] ?? '');
    const problems: string[] = [];
    for (const s of sections)
      if (!entries.includes(s.anchor)) problems.push(`"## ${s.text}" (line ${s.line}) has no line in the Contents`);
    const known = new Set(headings.map((h) => h.anchor));
    for (const m of contents.matchAll(/\]\(#([^)]+)\)/g))
      if (!known.has(m[1] ?? '')) problems.push(`the Contents links to #${m[1]}, which is no heading`);
    const listed = entries.filter((a) => sections.some((s) => s.anchor === a));
    const inOrder = sections.map((s) => s.anchor).filter((a) => listed.includes(a));
    if (problems.length === 0 && listed.join(' ') !== inOrder.join(' '))
      problems.push(`the Contents lists the sections out of the page's order:\n  ${listed.join('\n  ')}`);
    for (const a of entries)
      if (!sections.some((s) => s.anchor === a)) problems.push(`the Contents line of #${a} is not a ## section`);
    assert.deepEqual(problems, []);
  });

  it('every link to a heading of a doc (docs/*.md, README.md) lands on one', () => {
    const files = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const anchors = new Map(files.map((f) => [f, new Set(headingsOf(read(f)).map((h) => h.anchor))]));
    const broken: string[] = [];
    let links = 0;
    for (const file of files) {
      read(file)
        .split('\n')
        .forEach((line, i) => {
          for (const m of line.matchAll(/\]\(([\w./-]*\.md)?#([^)\s]+)\)/g)) {
            const target = m[1] === undefined ? file : posix.normalize(posix.join(posix.dirname(file), m[1]));
            links++;
            if (!existsSync(target)) broken.push(`${file}:${i + 1}: ${target} does not exist`);
            else if (!(anchors.get(target) ?? new Set(headingsOf(read(target)).map((h) => h.anchor))).has(m[2] ?? ''))
              broken.push(`${file}:${i + 1}: ${target} has no heading #${m[2]}`);
          }
        });
    }
    assert.ok(links > 50, `expected the docs' links to headings, read ${links}`);
    assert.deepEqual(broken, []);
  });
});
