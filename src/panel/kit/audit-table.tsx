/** Audit entries as a table: the provider's audit log, and the customer's own activity on the Account page. */
import type { Lang } from '../catalogue.js';
import { kitText } from './text.js';
import { dateTime } from './format.js';
import { Table } from './table.js';
import type { AuditEntry } from '../../ports/audit-store.js';

/** `withAccount`, `withAddress`: the columns only the provider sees. */
export function AuditTable<E extends AuditEntry>(props: {
  entries: readonly E[];
  lang: Lang;
  withAccount: boolean;
  withAddress: boolean;
  /** The actor as shown (the customer sees the provider's staff as "The provider"). */
  actor?: (entry: E) => string;
}) {
  const t = kitText[props.lang];
  return (
    <Table<E>
      class="audit"
      rows={props.entries}
      rowKey={(e) => e.id}
      columns={[
        { header: t.colWhen, cell: (e) => dateTime(e.at, props.lang) },
        { header: t.colActor, cell: (e) => props.actor?.(e) ?? e.actor },
        props.withAddress && { header: t.colAddress, cell: (e) => e.address ?? '' },
        { header: t.colAction, cell: (e) => e.action, class: 'action' },
        props.withAccount && {
          header: t.colAccount,
          cell: (e) =>
            e.accountId === null ? '' : <a href={`/panel/provider/accounts/${e.accountId}`}>{String(e.accountId)}</a>,
        },
        { header: t.colObject, cell: (e) => (e.objectType === null ? '' : `${e.objectType} ${e.objectId ?? ''}`) },
        { header: t.colDetail, cell: (e) => e.detail ?? '', class: 'detail' },
      ]}
    />
  );
}
