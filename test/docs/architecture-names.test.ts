import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';

/**
 * docs/architecture.md is the map of the house: every path and symbol it names must exist,
 * so the map cannot drift from the tree unnoticed. Two kinds of names are read: backticked
 * paths (`src/...`) and the code identifiers it names (backticked, or in the Mermaid
 * diagrams' notes and participants). Its folder listings and the diagrams' `Holder.field`
 * pairs are checked whole in architecture-claims.test.ts.
 */
const doc = readFileSync('docs/architecture.md', 'utf8');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = posix.join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

const sourceFiles = [...filesUnder('src'), ...filesUnder('test'), ...filesUnder('bench'), ...filesUnder('scripts')];
const sourceText = sourceFiles
  .filter((f) => /\.(ts|tsx|mjs|js|cjs)$/.test(f))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

const codeBlocks = [...doc.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ?? '', body: m[2] ?? '' }));
const prose = doc.replace(/```[\s\S]*?```/g, '');

/** The paths named in backticks in the prose (`src/ports/store.ts`, `src/composition/`). */
function backtickedPaths(): string[] {
  const out: string[] = [];
  for (const m of prose.matchAll(/`([^`\s]+)`/g)) {
    const token = (m[1] ?? '').replace(/[:,]$/, '');
    if (/^(src|test|bench|docs|scripts|bin)\//.test(token) || /^\.[\w-]+\.c?js$/.test(token)) out.push(token);
  }
  return out;
}

/** Mermaid's own words, which are not ours. */
const diagramWords = new Set(['sequenceDiagram', 'stateDiagram', 'flowchart', 'classDiagram']);

/** Identifiers with a capital inside (`openAppContainer`, `SqlStore`, `Dispatcher.handOff`). */
function namedSymbols(): string[] {
  const names = new Set<string>();
  const looksLikeCode = (word: string): boolean =>
    /^[A-Za-z_$][\w$]*$/.test(word) && /[a-z][A-Z]/.test(word) && !diagramWords.has(word);
  for (const m of prose.matchAll(/`([^`\n]+)`/g)) {
    for (const piece of (m[1] ?? '').replace(/\(.*\)$/, '').split('.')) if (looksLikeCode(piece)) names.add(piece);
  }
  for (const block of codeBlocks) {
    if (block.lang !== 'mermaid') continue;
    for (const m of block.body.matchAll(/[A-Za-z_$][\w$.]*/g)) {
      for (const piece of (m[0] ?? '').split('.')) if (looksLikeCode(piece)) names.add(piece);
    }
  }
  return [...names];
}

describe('docs/architecture.md names only what exists', () => {
  it('every backticked path exists', () => {
    const paths = backtickedPaths();
    assert.ok(paths.length > 20, `expected many named paths, read ${paths.length}`);
    const missing = paths.filter((p) => {
      if (!p.includes('*')) return !existsSync(p.replace(/\/$/, ''));
      const pattern = new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
      return !filesUnder(posix.dirname(p)).some((f) => pattern.test(f));
    });
    assert.deepEqual(missing, [], 'paths named in docs/architecture.md that are not in the tree');
  });

  it('every code identifier it names (prose and diagrams) is in the code', () => {
    const names = namedSymbols();
    assert.ok(names.length > 30, `expected many identifiers, read ${names.length}`);
    const missing = names.filter((name) => !new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(sourceText));
    assert.deepEqual(missing, [], 'identifiers named in docs/architecture.md that no source file has');
  });
});
