import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';

/**
 * docs/architecture.md is the map of the house: every path, file and symbol it names must
 * exist, so the map cannot drift from the tree unnoticed. Three kinds of names are read:
 * backticked paths (`src/...`), the file listings in its code blocks (a folder line, then
 * the files under it), and the code identifiers it names (backticked, or in the Mermaid
 * diagrams' notes and participants).
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

/**
 * The files of the code-block listings: a line at column 0 ending in `/` names a folder;
 * the `.ts` names under it are files of that folder or of one of its subfolders (a listing
 * line may name a subfolder first, `messages/  message-store.ts, ...`).
 */
function listedFiles(): { folder: string; file: string }[] {
  const out: { folder: string; file: string }[] = [];
  for (const block of codeBlocks) {
    if (block.lang !== '') continue;
    let folder = '';
    for (const line of block.body.split('\n')) {
      const head = /^([\w./-]+\/)\s*$/.exec(line);
      if (head?.[1] !== undefined) {
        folder = head[1];
        continue;
      }
      if (folder === '') continue;
      for (const m of line.matchAll(/(?<![\w.@-])([\w/-]+\.(?:ts|tsx|mjs|cjs|js))\b/g)) {
        out.push({ folder, file: m[1] ?? '' });
      }
    }
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

  it('every file of its listings is in the folder the listing names', () => {
    const listed = listedFiles();
    assert.ok(listed.length > 40, `expected the store's and the panel's listings, read ${listed.length}`);
    const missing = listed.filter(({ folder, file }) => {
      const base = folder.replace(/\/$/, '');
      if (!existsSync(base)) return true;
      if (existsSync(join(base, file))) return false;
      return !filesUnder(base).some((f) => f.endsWith(`/${file}`));
    });
    assert.deepEqual(missing, [], 'files listed in docs/architecture.md that are not under their folder');
  });

  it('every code identifier it names (prose and diagrams) is in the code', () => {
    const names = namedSymbols();
    assert.ok(names.length > 30, `expected many identifiers, read ${names.length}`);
    const missing = names.filter((name) => !new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(sourceText));
    assert.deepEqual(missing, [], 'identifiers named in docs/architecture.md that no source file has');
  });
});
