/** Messages as a table (the message log, and the overview's latest messages). */
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { dateTime, stateLabel } from '../../kit/format.js';
import { logMessages } from './catalogue.js';
import type { LogRow } from '../../../ports/panel-queries.js';

export function LogTable(props: { lang: Lang; rows: readonly LogRow[] }) {
  const { lang } = props;
  const t = logMessages[lang];
  return (
    <Table<LogRow>
      rows={props.rows}
      rowKey={(r) => r.id}
      columns={[
        {
          header: t.colId,
          rowHeader: true,
          cell: (r) => <a href={`/panel/messages/${r.id}`}>{t.messageTitle(r.id)}</a>,
        },
        { header: t.colNumber, cell: (r) => r.recipient },
        { header: t.colSender, cell: (r) => r.sender },
        { header: t.colStatus, cell: (r) => stateLabel(r.state, lang) },
        { header: t.colParts, cell: (r) => r.smsCount },
        { header: t.colCreated, cell: (r) => dateTime(r.createdAt, lang, 'second') },
      ]}
    />
  );
}
