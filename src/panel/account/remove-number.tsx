/** The last column of a list of numbers (a group's contacts, the blocking list): a button that takes the row's number off it. */
import type { PanelState } from '../context.js';
import type { Column } from '../kit/table.js';
import { RowAction } from '../kit/post-form.js';

/** `label(number)` names each button (its column's header is `label('')`, read but not shown). */
export function removeNumberColumn<T extends { number: string }>(
  state: PanelState,
  action: string,
  label: (number: string) => string,
): Column<T> {
  return {
    header: label(''),
    hiddenHeader: true,
    cell: (row) => (
      <RowAction
        action={action}
        state={state}
        fields={{ number: row.number }}
        label={label(row.number)}
        ariaLabel={label(row.number)}
      />
    ),
  };
}
