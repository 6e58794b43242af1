import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeForSubmit } from '../../src/domain/sms-encoding.js';

/**
 * The spec's SMS count table is the provider's billing table; the wire uses real GSM
 * segmentation. This test records every text length where the two counts differ, for
 * representative texts, so the differences are known and documented (docs/smpp.md).
 * A change in either side shows up here.
 */

// "Text length up to" per SMS count 1..7, from spec "Message language and SMS count".
const spec = {
  'TR lang 0': [160, 305, 455, 610, 760, 910, 1070],
  'TR lang 1': [155, 245, 445, 595, 740, 890, 1040],
  'TR lang 2': [65, 127, 190, 250, 315, 380, 445],
  international: [70, 130, 195, 260, 325, 390, 450],
} as const;

function billed(length: number, table: readonly number[]): number {
  const i = table.findIndex((max) => length <= max);
  return i === -1 ? 8 : i + 1;
}

type Sample = { table: keyof typeof spec; text: string; lang: 0 | 1 | 2 };
const samples: Record<string, Sample> = {
  'TR lang 0, plain letters': { table: 'TR lang 0', text: 'a', lang: 0 },
  'TR lang 1, plain letters': { table: 'TR lang 1', text: 'a', lang: 1 },
  'TR lang 1, only Turkish-only letters (ş)': { table: 'TR lang 1', text: 'ş', lang: 1 },
  'TR lang 2': { table: 'TR lang 2', text: 'x', lang: 2 },
  'international lang 0': { table: 'international', text: 'a', lang: 0 },
  'international lang 2': { table: 'international', text: 'x', lang: 2 },
};

interface Gap {
  from: number;
  to: number;
  billed: number;
  wire: number;
}

/** Lengths up to 30 past the 7-SMS column, grouped into runs where billed != wire. */
function gaps(sample: Sample): Gap[] {
  const out: Gap[] = [];
  const limit = (spec[sample.table][6] ?? 0) + 30;
  for (let n = 1; n <= limit; n++) {
    const b = billed(n, spec[sample.table]);
    const w = encodeForSubmit(sample.text.repeat(n), sample.lang, 0).parts.length;
    if (b === w) continue;
    const last = out[out.length - 1];
    if (last && last.to === n - 1 && last.billed === b && last.wire === w) last.to = n;
    else out.push({ from: n, to: n, billed: b, wire: w });
  }
  return out;
}

const show = (gs: Gap[]): string[] => gs.map((g) => `${g.from}-${g.to}: billed ${g.billed}, wire ${g.wire}`);

// The recorded differences; docs/smpp.md lists the same.
const expected: Record<string, string[]> = {
  'TR lang 0, plain letters': [
    '306-306: billed 3, wire 2',
    '456-459: billed 4, wire 3',
    '611-612: billed 5, wire 4',
    '761-765: billed 6, wire 5',
    '911-918: billed 7, wire 6',
    '1071-1071: billed 8, wire 7',
  ],
  // Billing is stricter than the wire for text without Turkish-only letters.
  'TR lang 1, plain letters': [
    '156-160: billed 2, wire 1',
    '246-306: billed 3, wire 2',
    '446-459: billed 4, wire 3',
    '596-612: billed 5, wire 4',
    '741-765: billed 6, wire 5',
    '891-918: billed 7, wire 6',
    '1041-1070: billed 8, wire 7',
  ],
  // The single shift costs two septets per Turkish-only letter (ğ Ğ ı İ ş Ş ç); billing counts one.
  'TR lang 1, only Turkish-only letters (ş)': [
    '78-148: billed 1, wire 2',
    '149-155: billed 1, wire 3',
    '156-222: billed 2, wire 3',
    '223-245: billed 2, wire 4',
    '246-296: billed 3, wire 4',
    '297-370: billed 3, wire 5',
    '371-444: billed 3, wire 6',
    '445-445: billed 3, wire 7',
    '446-518: billed 4, wire 7',
    '519-592: billed 4, wire 8',
    '593-595: billed 4, wire 9',
    '596-666: billed 5, wire 9',
    '667-740: billed 5, wire 10',
    '741-814: billed 6, wire 11',
    '815-888: billed 6, wire 12',
    '889-890: billed 6, wire 13',
    '891-962: billed 7, wire 13',
    '963-1036: billed 7, wire 14',
    '1037-1040: billed 7, wire 15',
    '1041-1070: billed 8, wire 15',
  ],
  'TR lang 2': [
    '66-70: billed 2, wire 1',
    '128-134: billed 3, wire 2',
    '191-201: billed 4, wire 3',
    '251-268: billed 5, wire 4',
    '316-335: billed 6, wire 5',
    '381-402: billed 7, wire 6',
    '446-469: billed 8, wire 7',
  ],
  // International billing uses UCS-2-like columns whatever the language.
  'international lang 0': [
    '71-130: billed 2, wire 1',
    '131-160: billed 3, wire 1',
    '161-195: billed 3, wire 2',
    '196-260: billed 4, wire 2',
    '261-306: billed 5, wire 2',
    '307-325: billed 5, wire 3',
    '326-390: billed 6, wire 3',
    '391-450: billed 7, wire 3',
    '451-459: billed 8, wire 3',
    '460-480: billed 8, wire 4',
  ],
  'international lang 2': [
    '131-134: billed 3, wire 2',
    '196-201: billed 4, wire 3',
    '261-268: billed 5, wire 4',
    '326-335: billed 6, wire 5',
    '391-402: billed 7, wire 6',
    '451-469: billed 8, wire 7',
  ],
};

describe('wire segmentation against the spec billing table', () => {
  for (const [name, sample] of Object.entries(samples)) {
    it(name, (t) => {
      const found = show(gaps(sample));
      for (const line of found) t.diagnostic(line);
      assert.deepEqual(found, expected[name]);
    });
  }
});
