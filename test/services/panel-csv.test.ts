import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxCsvRows, readNumberCsv } from '../../src/services/panel/account/csv-import.js';

describe('panel CSV rules', () => {
  it('reads one number per row without a header, comma separated', () => {
    assert.deepEqual(readNumberCsv('05321112233\n05321112234,foo\n\n'), {
      ok: true,
      entries: [
        { line: 1, value: '05321112233' },
        { line: 2, value: '05321112234' },
      ],
    });
  });

  it('finds the number and name columns of a semicolon file with a BOM and quotes', () => {
    assert.deepEqual(readNumberCsv('\uFEFFAd;Numara\n"Ali; Veli";0532 111 22 33\nAyşe;abc\n'), {
      ok: true,
      entries: [
        { line: 2, value: '0532 111 22 33', name: 'Ali; Veli' },
        { line: 3, value: 'abc', name: 'Ayşe' },
      ],
    });
  });

  it('refuses an unreadable file, an empty one and one over the row limit', () => {
    assert.deepEqual(readNumberCsv('"unclosed\n'), { ok: false, error: 'unreadable' });
    assert.deepEqual(readNumberCsv(''), { ok: false, error: 'empty' });
    assert.deepEqual(readNumberCsv('number\n' + '905321112233\n'.repeat(maxCsvRows + 1)), {
      ok: false,
      error: 'too-many-rows',
    });
    assert.equal(
      (readNumberCsv('number\n' + '905321112233\n'.repeat(maxCsvRows)) as { ok: true; entries: unknown[] }).entries
        .length,
      maxCsvRows,
    );
  });
});
