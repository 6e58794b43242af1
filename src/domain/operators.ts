import { isPlausibleNumber } from './recipients.js';

/**
 * The six operator labels of detailed reports (`details.operator`), plus UNKNOWN. Five are
 * the mobile operators reachable through Türkiye's +90 numbers, including the two of
 * Northern Cyprus, which use sub-ranges of Turkcell's 533 and Vodafone's 542; the sixth
 * covers every number outside +90, sent over the international route.
 */
export const operatorLabels = [
  'TURKCELL',
  'VODAFONE',
  'TURK TELEKOM',
  'KKTCELL',
  'KKTC TELSIM',
  'INTERNATIONAL',
] as const;

export type OperatorLabel = (typeof operatorLabels)[number] | 'UNKNOWN';

/**
 * Prefixes after 90, from the allocation data behind libphonenumber (carrier/en/90.txt and
 * the TR mobile pattern). The longest matching prefix wins. The label is the operator a
 * range was allocated to: ported numbers keep their original range, so it is a best guess.
 * Mobile ranges with no known operator (510, 516, 524, 594, 596) give UNKNOWN.
 */
const prefixTable: ReadonlyArray<readonly [string, OperatorLabel]> = [
  ...['501', '505', '506', '507'].map((p) => [p, 'TURK TELEKOM'] as const),
  ...['551', '552', '553', '554', '555', '559'].map((p) => [p, 'TURK TELEKOM'] as const),
  ...['530', '531', '532', '533', '534', '535', '536', '537', '538', '539'].map((p) => [p, 'TURKCELL'] as const),
  ['561', 'TURKCELL'],
  ...['540', '541', '542', '543', '544', '545', '546', '547', '548', '549'].map((p) => [p, 'VODAFONE'] as const),
  ...['53383', '53384', '53385', '53386', '53387'].map((p) => [p, 'KKTCELL'] as const),
  ...['54285', '54286', '54287', '54288'].map((p) => [p, 'KKTC TELSIM'] as const),
];

const longestFirst = [...prefixTable].sort((a, b) => b[0].length - a[0].length);

/** Operator label of a normalised number. Türkiye numbers must have 12 digits to be matched. */
export function operatorOf(normalised: string): OperatorLabel {
  if (!normalised.startsWith('90')) {
    return isPlausibleNumber(normalised) ? 'INTERNATIONAL' : 'UNKNOWN';
  }
  if (!/^90\d{10}$/.test(normalised)) return 'UNKNOWN';
  const national = normalised.slice(2);
  const row = longestFirst.find(([prefix]) => national.startsWith(prefix));
  return row ? row[1] : 'UNKNOWN';
}

const displayNames: Record<OperatorLabel, string> = {
  TURKCELL: 'Turkcell',
  VODAFONE: 'Vodafone',
  'TURK TELEKOM': 'Türk Telekom',
  KKTCELL: 'Kuzey Kıbrıs Turkcell',
  'KKTC TELSIM': 'KKTC Telsim',
  INTERNATIONAL: 'International',
  UNKNOWN: '',
};

/** The /sms/status `operator` field: the operator's own name, or empty when unknown (the spec allows empty). */
export function operatorName(normalised: string): string {
  return displayNames[operatorOf(normalised)];
}
