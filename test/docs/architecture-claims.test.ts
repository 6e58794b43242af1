import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * docs/architecture.md's claims about the code, checked against the code (its names alone are
 * checked by architecture-names.test.ts):
 *
 * - **A folder listing is complete.** A listing is a plain code block whose line at column 0
 *   ends in `/` (`src/ports/`). Under it, a line indented two spaces is an entry, and a more
 *   indented line continues the entry above. An entry starting with `name/` is that
 *   subfolder's. Every `.ts` name in an entry is a file: a bare name in the entry's folder (the
 *   subfolder's, for a subfolder's entry), a name with a slash in the listed folder. Each named
 *   file exists; each `.ts` file of the folder is named; each subfolder holding `.ts` files has
 *   an entry, and each of its files is named, or, for numbered files, covered by a range
 *   written `0001-... to 0036-...` whose ends are the folder's lowest and highest.
 * - **A `Holder.field` of a Mermaid diagram is a member of a holder that exists.** A pair is
 *   `identifier.identifier` in a mermaid block, not inside a longer path or file name
 *   (`index.ts` is a file); the holder is a class, interface, type alias, enum or object
 *   constant of src/ with that exact name, and the field is declared on it or on what it
 *   extends (a class's fields, methods, accessors and constructor parameter properties; an
 *   interface's or object type's members; an object literal's keys). A variable is named by
 *   its type: `AppContainer.webhookWake`, not `container.webhookWake`.
 *
 * Pure file reads: src/ is parsed, never built or run.
 */
const docPath = 'docs/architecture.md';
const doc = readFileSync(docPath, 'utf8');
const lineOf = (offset: number): number => doc.slice(0, offset).split('\n').length;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = posix.join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}
const isSource = (path: string): boolean => /\.tsx?$/.test(path);

interface Entry {
  /** The folder its bare names are in (the listed folder, or one of its subfolders). */
  dir: string;
  /** Set for a subfolder's own entry. */
  subfolder: boolean;
  text: string;
  line: number;
}
interface Listing {
  folder: string;
  line: number;
  entries: Entry[];
}

function listings(): Listing[] {
  const out: Listing[] = [];
  for (const block of doc.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    if (block[1] !== '') continue;
    const firstLine = lineOf(block.index ?? 0) + 1;
    let listing: Listing | null = null;
    (block[2] ?? '').split('\n').forEach((text, i) => {
      const line = firstLine + i;
      const head = /^([\w./-]+\/)\s*$/.exec(text);
      if (head?.[1] !== undefined) {
        listing = { folder: head[1].replace(/\/$/, ''), line, entries: [] };
        out.push(listing);
        return;
      }
      if (listing === null || text.trim() === '') return;
      const current: Listing = listing;
      const entry = /^ {2}(\S.*)$/.exec(text)?.[1];
      if (entry !== undefined) {
        const sub = /^([\w.-]+)\/(\s|$)/.exec(entry)?.[1];
        current.entries.push({
          dir: sub === undefined ? current.folder : posix.join(current.folder, sub),
          subfolder: sub !== undefined,
          text: entry,
          line,
        });
        return;
      }
      const last = current.entries.at(-1);
      if (last) last.text += ` ${text.trim()}`;
    });
  }
  return out;
}

const pad = (n: number): string => String(n).padStart(4, '0');

/** The problems of one listing: files named that are not there, files there that are not named. */
function listingProblems({ folder, line, entries }: Listing): string[] {
  const at = `${docPath}:${line} (the listing of ${folder}/)`;
  if (!existsSync(folder)) return [`${at}: ${folder}/ does not exist`];
  const problems: string[] = [];
  const named = new Set<string>();
  const ranges = new Map<string, [number, number]>();
  for (const entry of entries) {
    for (const m of entry.text.matchAll(/(?<![\w.@/*-])((?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.tsx?)(?![\w.])/g)) {
      const name = m[1] ?? '';
      const path = posix.join(name.includes('/') ? folder : entry.dir, name);
      if (!existsSync(path)) problems.push(`${docPath}:${entry.line}: names ${path}, which does not exist`);
      named.add(path);
    }
    const range = /\b(\d{4})-\.\.\. to (\d{4})-\.\.\./.exec(entry.text);
    if (range && entry.subfolder) ranges.set(entry.dir, [Number(range[1]), Number(range[2])]);
  }
  const sources = filesUnder(folder).filter(isSource);
  const subfolders = new Set(
    sources.map((f) => posix.dirname(f)).filter((d) => d !== folder).map((d) => posix.join(folder, d.slice(folder.length + 1).split('/')[0] ?? '')),
  );
  for (const sub of subfolders)
    if (!entries.some((e) => e.subfolder && e.dir === sub)) problems.push(`${at}: has no entry for ${sub}/`);
  for (const [dir, [first, last]] of ranges) {
    const numbers = sources
      .filter((f) => posix.dirname(f) === dir)
      .map((f) => /^(\d{4})-/.exec(posix.basename(f))?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number);
    const [low, high] = [Math.min(...numbers), Math.max(...numbers)];
    if (low !== first || high !== last)
      problems.push(`${at}: says ${dir}/ holds ${pad(first)} to ${pad(last)}, it holds ${pad(low)} to ${pad(high)}`);
  }
  for (const file of sources) {
    if (named.has(file)) continue;
    const range = ranges.get(posix.dirname(file));
    const n = /^(\d{4})-/.exec(posix.basename(file))?.[1];
    if (range && n !== undefined && Number(n) >= range[0] && Number(n) <= range[1]) continue;
    if (subfolders.has(posix.dirname(file)) || posix.dirname(file) === folder) problems.push(`${at}: does not name ${file}`);
    else problems.push(`${at}: does not name ${file} (nor its folder ${posix.dirname(file)}/)`);
  }
  return problems;
}

// ---- Holder.field pairs of the Mermaid diagrams ----

interface Pair {
  holder: string;
  field: string;
  line: number;
}

const fileExtensions = new Set(['ts', 'tsx', 'js', 'mjs', 'cjs', 'json', 'md']);

function mermaidPairs(): { pairs: Pair[]; chains: string[] } {
  const pairs: Pair[] = [];
  const chains: string[] = [];
  for (const block of doc.matchAll(/^```mermaid\n([\s\S]*?)^```/gm)) {
    const start = (block.index ?? 0) + '```mermaid\n'.length;
    const body = block[1] ?? '';
    for (const m of body.matchAll(/(?<![\w$./-])([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)(?![\w$-])(\.[A-Za-z_$])?/g)) {
      const [, holder = '', field = '', chained] = m;
      const line = lineOf(start + (m.index ?? 0));
      if (fileExtensions.has(field)) continue;
      if (chained !== undefined) chains.push(`${docPath}:${line}: ${holder}.${field}${chained}...: write one Holder.field`);
      else pairs.push({ holder, field, line });
    }
  }
  return { pairs, chains };
}

const sourceTexts = new Map(
  filesUnder('src')
    .filter((f) => isSource(f) && !f.endsWith('openapi-types.ts'))
    .map((f) => [f, readFileSync(f, 'utf8')]),
);
const parsed = new Map<string, ts.SourceFile>();
function parse(file: string, text: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) {
    const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, kind);
    parsed.set(file, source);
  }
  return source;
}

/** An object constant: `const name = { ... }` (as const, satisfies ... allowed). */
const isObjectConstant = (node: ts.VariableDeclaration): boolean =>
  ts.isVariableDeclarationList(node.parent) &&
  (node.parent.flags & ts.NodeFlags.Const) !== 0 &&
  objectKeys(node.initializer).length > 0;

type Holding = ts.ClassDeclaration | ts.InterfaceDeclaration | ts.TypeAliasDeclaration | ts.EnumDeclaration | ts.VariableDeclaration;

/** The declarations named `name` in src/ that can hold members, with their files. */
function declarationsOf(name: string): { file: string; node: Holding }[] {
  const out: { file: string; node: Holding }[] = [];
  const mention = new RegExp(`\\b(class|interface|type|enum|const)\\s+${name.replace(/\$/g, '\\$')}\\b`);
  for (const [file, text] of sourceTexts) {
    if (!mention.test(text)) continue;
    const visit = (node: ts.Node): void => {
      if (
        (ts.isClassDeclaration(node) ||
          ts.isInterfaceDeclaration(node) ||
          ts.isTypeAliasDeclaration(node) ||
          ts.isEnumDeclaration(node) ||
          (ts.isVariableDeclaration(node) && isObjectConstant(node))) &&
        node.name !== undefined &&
        ts.isIdentifier(node.name) &&
        node.name.text === name
      )
        out.push({ file, node });
      ts.forEachChild(node, visit);
    };
    visit(parse(file, text));
  }
  return out;
}

function memberName(name: ts.PropertyName | ts.BindingName | undefined): string | null {
  if (name === undefined) return null;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return null;
}

function typeMembers(type: ts.TypeNode | undefined, seen: Set<string>): string[] {
  if (type === undefined) return [];
  if (ts.isTypeLiteralNode(type)) return type.members.map((m) => memberName(m.name)).filter((n): n is string => n !== null);
  if (ts.isIntersectionTypeNode(type) || ts.isUnionTypeNode(type)) return type.types.flatMap((t) => typeMembers(t, seen));
  if (ts.isParenthesizedTypeNode(type)) return typeMembers(type.type, seen);
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) return membersOf(type.typeName.text, seen);
  return [];
}

function objectKeys(expression: ts.Expression | undefined): string[] {
  if (expression === undefined) return [];
  if (ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression) || ts.isParenthesizedExpression(expression))
    return objectKeys(expression.expression);
  if (!ts.isObjectLiteralExpression(expression)) return [];
  return expression.properties.map((p) => memberName(p.name)).filter((n): n is string => n !== null);
}

function heritage(node: ts.ClassDeclaration | ts.InterfaceDeclaration, seen: Set<string>): string[] {
  return (node.heritageClauses ?? [])
    .filter((c) => c.token === ts.SyntaxKind.ExtendsKeyword)
    .flatMap((c) => c.types)
    .flatMap((t) => (ts.isIdentifier(t.expression) ? membersOf(t.expression.text, seen) : []));
}

/** Every member the holders named `name` declare (or inherit by `extends`). */
function membersOf(name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  return declarationsOf(name).flatMap(({ node }) => {
    if (ts.isClassDeclaration(node)) {
      const own = node.members.map((m) => memberName(m.name)).filter((n): n is string => n !== null);
      const parameters = node.members
        .filter(ts.isConstructorDeclaration)
        .flatMap((c) => c.parameters)
        .filter((p) => ts.getModifiers(p)?.length)
        .map((p) => memberName(p.name))
        .filter((n): n is string => n !== null);
      return [...own, ...parameters, ...heritage(node, seen)];
    }
    if (ts.isInterfaceDeclaration(node))
      return [...node.members.map((m) => memberName(m.name)).filter((n): n is string => n !== null), ...heritage(node, seen)];
    if (ts.isTypeAliasDeclaration(node)) return typeMembers(node.type, seen);
    if (ts.isEnumDeclaration(node)) return node.members.map((m) => memberName(m.name)).filter((n): n is string => n !== null);
    return objectKeys(node.initializer);
  });
}

describe('docs/architecture.md says what the code is', () => {
  it('every folder listing names each .ts file of its folder (and of the subfolders it lists), and only files there', () => {
    const all = listings();
    assert.ok(all.length >= 2, `expected the listings of src/ports/ and src/adapters/store/, read ${all.length}`);
    assert.deepEqual(all.flatMap(listingProblems), []);
  });

  it('every Holder.field of its Mermaid diagrams is a member of a class, interface, type or object of src/', () => {
    const { pairs, chains } = mermaidPairs();
    assert.ok(pairs.length >= 5, `expected the diagrams' Holder.field pairs, read ${pairs.length}`);
    const problems = [...chains];
    const members = new Map<string, { files: string[]; names: Set<string> }>();
    for (const { holder, field, line } of pairs) {
      let known = members.get(holder);
      if (!known) {
        known = { files: [...new Set(declarationsOf(holder).map((d) => d.file))], names: new Set(membersOf(holder)) };
        members.set(holder, known);
      }
      if (known.files.length === 0)
        problems.push(`${docPath}:${line}: ${holder}.${field}: no class, interface, type or object named ${holder} in src/`);
      else if (!known.names.has(field))
        problems.push(`${docPath}:${line}: ${holder}.${field}: ${holder} (${known.files.join(', ')}) has no member ${field}`);
    }
    assert.deepEqual(problems, []);
  });
});
