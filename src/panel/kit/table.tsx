/**
 * The panel's one table: a header row of column names, a row per item, the first column
 * marked as the row's header where it names the row. Wrapped to scroll sideways on a narrow
 * screen; `cards` turns each row into a card on a phone instead, each cell labelled by its
 * column (data-label, panel.css).
 */
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** This column's cell is the row's header (`<th scope="row">`). */
  rowHeader?: boolean;
  class?: string;
  /** The header is read by screen readers but not shown (a column of buttons). */
  hiddenHeader?: boolean;
}

export function Table<T>(props: {
  /** `false` leaves a column out (one shown only on some pages). */
  columns: readonly (Column<T> | false)[];
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  /** Said instead of the table when there are no rows; without it an empty table is drawn. */
  empty?: string;
  cards?: boolean;
  class?: string;
  rowAttributes?: (row: T) => Record<string, string>;
}) {
  const columns = props.columns.filter((c): c is Column<T> => c !== false);
  if (props.rows.length === 0 && props.empty !== undefined) return <p>{props.empty}</p>;
  const tableClass = [props.cards ? 'cards' : '', props.class ?? ''].filter((c) => c !== '').join(' ');
  return (
    <div class="table-wrap">
      <table class={tableClass === '' ? undefined : tableClass}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.header}>
                {c.hiddenHeader ? <span class="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} {...(props.rowAttributes?.(row) ?? {})}>
              {columns.map((c) =>
                c.rowHeader ? (
                  <th scope="row" key={c.header}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td class={c.class} data-label={props.cards ? c.header : undefined} key={c.header}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
