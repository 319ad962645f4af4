// biome-ignore-all lint/a11y/noRedundantRoles: a phone shows each row as a card (display: block), which drops a table's implicit roles in some browsers
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  /** The header; empty for a column of buttons (named "Actions" for screen readers). */
  label: string;
  cell: (row: T) => ComponentChildren;
  /** Numbers: right-aligned, tabular. */
  num?: boolean;
}

/**
 * A table of `rows`, its first column each row's header. On a phone each row
 * becomes a card of label and value (styles.css); the explicit roles keep
 * the table's semantics when CSS changes how its parts are displayed.
 */
export function Table<T extends { id: string }>({
  caption,
  showCaption,
  columns,
  rows,
}: {
  caption: string;
  showCaption?: boolean;
  columns: Column<T>[];
  rows: T[];
}) {
  const cls = (c: Column<T>, i: number) => (c.num ? 'num' : i > 0 && !c.label ? 'end' : undefined);
  return (
    <div class="table-wrap">
      <table role="table">
        <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((c, i) => (
              <th scope="col" role="columnheader" class={cls(c, i)}>
                {c.label || <span class="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row) => (
            <tr key={row.id} role="row">
              {columns.map((c, i) =>
                i === 0 ? (
                  <th scope="row" role="rowheader">
                    {c.cell(row)}
                  </th>
                ) : (
                  <td role="cell" class={cls(c, i)} data-label={c.label}>
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
