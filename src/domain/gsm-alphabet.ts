/**
 * GSM 03.38 / 3GPP TS 23.038 7-bit alphabets: the default alphabet, its extension table
 * (reached through ESC 0x1B) and the Turkish national language single shift table, which
 * replaces the extension table when the UDH carries IE 0x24 with value 0x01.
 * Septets here are unpacked: one septet per value 0..127.
 */

/** The default alphabet; index = septet. 0x1B (ESC) is a placeholder that never matches. */
const DEFAULT_ALPHABET =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

export const ESC = 0x1b;

/** Default extension table: character -> septet after ESC. 0x0A is form feed. */
const DEFAULT_EXTENSION: ReadonlyArray<readonly [string, number]> = [
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
];

/** Turkish single shift table (TS 23.038 A.2.1): the default extension plus Turkish letters. */
const TURKISH_SINGLE_SHIFT: ReadonlyArray<readonly [string, number]> = [
  ...DEFAULT_EXTENSION,
  ['Ğ', 0x47],
  ['İ', 0x49],
  ['Ş', 0x53],
  ['ç', 0x63],
  ['ğ', 0x67],
  ['ı', 0x69],
  ['ş', 0x73],
];

export type ShiftTable = 'default' | 'turkish';

const basicEncode = new Map<string, number>();
for (let i = 0; i < DEFAULT_ALPHABET.length; i++) {
  const ch = DEFAULT_ALPHABET[i];
  if (ch !== undefined && i !== ESC) basicEncode.set(ch, i);
}

const shiftEncode: Record<ShiftTable, Map<string, number>> = {
  default: new Map(DEFAULT_EXTENSION),
  turkish: new Map(TURKISH_SINGLE_SHIFT),
};

const shiftDecode: Record<ShiftTable, Map<number, string>> = {
  default: new Map(DEFAULT_EXTENSION.map(([c, s]) => [s, c])),
  turkish: new Map(TURKISH_SINGLE_SHIFT.map(([c, s]) => [s, c])),
};

/**
 * The septets of one character (one code point): one from the default alphabet, or ESC
 * plus one from the shift table; undefined when the character is in neither.
 */
export function septetsOf(char: string, table: ShiftTable): number[] | undefined {
  const basic = basicEncode.get(char);
  if (basic !== undefined) return [basic];
  const shifted = shiftEncode[table].get(char);
  return shifted === undefined ? undefined : [ESC, shifted];
}

/**
 * Decodes unpacked septets. An ESC followed by a septet missing from the shift table
 * shows the default alphabet character, as TS 23.038 asks of receivers.
 */
export function decodeSeptets(septets: Uint8Array, table: ShiftTable): string {
  let out = '';
  for (let i = 0; i < septets.length; i++) {
    const s = (septets[i] ?? 0) & 0x7f;
    if (s === ESC && i + 1 < septets.length) {
      const next = (septets[i + 1] ?? 0) & 0x7f;
      out += shiftDecode[table].get(next) ?? DEFAULT_ALPHABET[next] ?? ' ';
      i++;
    } else if (s !== ESC) {
      out += DEFAULT_ALPHABET[s] ?? ' ';
    }
  }
  return out;
}
