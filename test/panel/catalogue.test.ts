import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { panelAreas } from '../../src/panel/areas.js';
import { allCatalogues, languages } from '../../src/panel/catalogue.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

const panelSources = files('src/panel').filter((f) => f.endsWith('.tsx') || f.endsWith('.ts'));

/** Words written straight into JSX: text between tags, or a labelling attribute given as a literal. */
function hardCoded(source: string): string[] {
  const found: string[] = [];
  // Text after a tag's > (not an arrow's =>) up to the next tag or expression, with a letter in it.
  for (const m of source.matchAll(/(?<!=)>([^<>{}()=;]*)[<{]/g)) {
    const text = (m[1] ?? '').replace(/\\[a-z]/g, '').trim();
    if (/\p{L}/u.test(text)) found.push(`text "${text}"`);
  }
  for (const m of source.matchAll(/\b(aria-label|title|placeholder|alt|data-copied|data-label|value)="([^"]*)"/g)) {
    if (/\p{L}{2,}/u.test(m[2] ?? '')) found.push(`${m[1]}="${m[2]}"`);
  }
  return found;
}

describe('panel message catalogue', () => {
  it('finds hard-coded words (the scan itself)', () => {
    assert.deepEqual(hardCoded('<p>Hello {name}</p><button aria-label="Close">{t.x}</button>'), [
      'text "Hello"',
      'aria-label="Close"',
    ]);
    assert.deepEqual(hardCoded('<p>{t.hello}</p> const f = (a) => b; <input value={v} />'), []);
  });

  it('has, in every module, the same keys in Turkish as in English, with the same parameters', () => {
    assert.ok(panelAreas.account.length > 0 && panelAreas.provider.length > 0);
    assert.ok(allCatalogues.size >= 3, 'the catalogue modules are loaded with the areas');
    for (const [name, catalogue] of allCatalogues) {
      const en = catalogue.en;
      for (const lang of languages) {
        const other = catalogue[lang];
        assert.deepEqual(Object.keys(other).sort(), Object.keys(en).sort(), `${name}: ${lang} keys`);
        for (const [key, value] of Object.entries(en as Record<string, unknown>)) {
          const theirs = (other as Record<string, unknown>)[key];
          assert.equal(typeof theirs, typeof value, `${name}.${key} in ${lang}`);
          if (typeof value === 'function' && typeof theirs === 'function')
            assert.equal(theirs.length, value.length, `${name}.${key} parameters in ${lang}`);
          if (typeof theirs === 'string') assert.notEqual(theirs.trim(), '', `${name}.${key} is empty in ${lang}`);
        }
      }
    }
  });

  it('is the only source of the text of pages: no words in JSX text or in labelling attributes outside the catalogues', () => {
    const offenders = panelSources
      .filter((f) => f.endsWith('.tsx'))
      .flatMap((file) => hardCoded(readFileSync(file, 'utf8')).map((x) => `${relative('.', file)}: ${x}`));
    assert.deepEqual(offenders, []);
  });
});
