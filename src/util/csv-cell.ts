/**
 * CSV cells made safe for spreadsheets (OWASP, CSV injection): every CSV this program
 * writes (the panel's exports, the provider's statements) passes its cells through
 * `safeCell`.
 */

/**
 * What a spreadsheet reads as the start of a formula (OWASP, CSV injection), with the
 * fullwidth forms Apple Numbers folds into them.
 */
const formulaChars = '=+\\-@\\uFF1D\\uFF0B\\uFF0D\\uFF20';
/**
 * Where a spreadsheet may start a new cell inside one of ours, if it splits the text
 * itself: the list separators of its locales (`,`, and `;` in Turkish, German or French
 * Excel), a tab, a line break. Spaces after it are skipped, as some spreadsheets trim them.
 */
const formulaAfterSeparator = new RegExp(`([,;\\t\\r\\n][ \\t]*)(?=[${formulaChars}])`, 'g');
const formulaStart = new RegExp(`^(?:[\\t\\r]|[ ]*[${formulaChars}])`);

/**
 * A cell as exported: text a spreadsheet would run as a formula (a contact's name, a
 * recipient that is no number, an operator's report) gets a single quote before it, so it
 * is shown as the text it is; and so does every part of it that starts after a separator
 * (`x;=11`, `a, -2+3`), for a spreadsheet that splits the cell there. Numbers are ours
 * (ids, counts: never negative) and pass as they are; so do our phone numbers, which are
 * stored without a `+`.
 */
export function safeCell(value: string | number): string | number {
  if (typeof value !== 'string') return value;
  const inside = value.replace(formulaAfterSeparator, "$1'");
  return formulaStart.test(inside) ? `'${inside}` : inside;
}
