/**
 * Country calling codes (ITU-T E.164) of a normalised number (digits, no leading 00 or +),
 * and its destination prefix: the calling code and the next three digits (in Türkiye the
 * operator's block, 90532...). The OTP guard's countries and prefixes are these.
 */

/** Zones 1 and 7 have one-digit codes; these two-digit codes are whole; every other code has three digits. */
const twoDigitCodes = new Set([
  '20',
  '27',
  '30',
  '31',
  '32',
  '33',
  '34',
  '36',
  '39',
  '40',
  '41',
  '43',
  '44',
  '45',
  '46',
  '47',
  '48',
  '49',
  '51',
  '52',
  '53',
  '54',
  '55',
  '56',
  '57',
  '58',
  '60',
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '81',
  '82',
  '84',
  '86',
  '90',
  '91',
  '92',
  '93',
  '94',
  '95',
  '98',
]);

/** The calling code a number starts with (digits only), or '' when it has too few digits. */
export function callingCodeOf(number: string): string {
  if (!/^\d{4,}$/.test(number)) return '';
  if (number.startsWith('1') || number.startsWith('7')) return number.slice(0, 1);
  const two = number.slice(0, 2);
  return twoDigitCodes.has(two) ? two : number.slice(0, 3);
}

/** The calling code and the next three digits: the unit the guard counts and holds. */
export function destinationPrefixOf(number: string): string {
  const code = callingCodeOf(number);
  return code === '' ? number : number.slice(0, code.length + 3);
}
