/**
 * Monthly statements on a page (docs/resellers.md, "Statements"): the month's choice, a
 * table of each account's messages and credit per balance (the figures of `admin account
 * statement`, from the ledger to the unit), and the same as a CSV download through the
 * statements' own CSV writer, whose every cell passes the CSV guard (src/util/csv-cell.ts).
 * The customer's, the reseller's and the provider's statement pages all show it.
 */
import type { FastifyReply } from 'fastify';
import type { Lang } from '../catalogue.js';
import { defineMessages } from '../catalogue.js';
import { Table } from './table.js';
import { statementsCsv } from '../../services/account-statements.js';
import type { Statement, StatementCredit } from '../../services/account-statements.js';

export const statementText = defineMessages(
  'statement',
  {
    month: 'Month',
    show: 'Show',
    download: 'Download CSV',
    caption: (month: string) => `Statement of ${month}`,
    intro:
      'Messages created in the month, by the state they are in now, and each balance’s credit from the ledger, to the unit: closing = opening + added + refunded + moved in − spent − moved out − taken.',
    colAccount: 'Account',
    colBalance: 'Balance',
    colMessages: 'Messages',
    colSms: 'SMS',
    colDelivered: 'Delivered',
    colFailed: 'Failed or expired',
    opening: 'Opening',
    added: 'Added',
    spent: 'Spent',
    refunded: 'Refunded',
    moved_in: 'Moved in',
    moved_out: 'Moved out',
    taken: 'Taken',
    closing: 'Closing',
    main: 'Main',
    international: 'International',
  },
  {
    month: 'Ay',
    show: 'Göster',
    download: 'CSV indir',
    caption: (month: string) => `${month} dökümü`,
    intro:
      'Ay içinde oluşturulan mesajlar, şu anki durumlarına göre; her bakiyenin kredisi defterden, birimi birimine: kapanış = açılış + eklenen + iade + gelen aktarım − harcanan − giden aktarım − düşülen.',
    colAccount: 'Hesap',
    colBalance: 'Bakiye',
    colMessages: 'Mesaj',
    colSms: 'SMS',
    colDelivered: 'İletilen',
    colFailed: 'İletilemeyen ya da süresi dolan',
    opening: 'Açılış',
    added: 'Eklenen',
    spent: 'Harcanan',
    refunded: 'İade',
    moved_in: 'Gelen aktarım',
    moved_out: 'Giden aktarım',
    taken: 'Düşülen',
    closing: 'Kapanış',
    main: 'Ana',
    international: 'Uluslararası',
  },
);

/** From 2000 to 2999: the months the statement's day arithmetic takes (monthBounds). */
const shape = /^(2\d{3})-(0[1-9]|1[0-2])$/;

/** The month a statement page was asked for (`?month=YYYY-MM`), or undefined: this month. */
export function monthQuery(raw: string | undefined): string | undefined {
  return raw !== undefined && shape.test(raw) ? raw : undefined;
}

const creditKeys = ['opening', 'added', 'spent', 'refunded', 'moved_in', 'moved_out', 'taken', 'closing'] as const;

interface Row {
  statement: Statement;
  bucket: 'main' | 'international';
  credit: StatementCredit;
}

/** The month's form (GET, back to `action`), the statements' table and the CSV link (`csv`, with the month). */
export function StatementView(props: { lang: Lang; action: string; csv: string; statements: readonly Statement[] }) {
  const t = statementText[props.lang];
  const month = props.statements[0]?.month ?? '';
  const rows: Row[] = props.statements.flatMap((s) =>
    (['main', 'international'] as const).map((bucket) => ({ statement: s, bucket, credit: s.credit[bucket] })),
  );
  const onMain = (r: Row, value: number) => (r.bucket === 'main' ? value : '');
  return (
    <>
      <form method="get" action={props.action} class="inline">
        <label for="statement-month">{t.month}</label>
        <input id="statement-month" name="month" type="month" value={month} required />
        <button type="submit">{t.show}</button>
      </form>
      <p>
        <a class="button secondary" href={`${props.csv}?month=${month}`} download>
          {t.download}
        </a>
      </p>
      <h2>{t.caption(month)}</h2>
      <p class="muted">{t.intro}</p>
      <Table<Row>
        rows={rows}
        rowKey={(r) => `${r.statement.account_id}-${r.bucket}`}
        rowAttributes={(r) => ({ 'data-account': String(r.statement.account_id), 'data-balance': r.bucket })}
        columns={[
          {
            header: t.colAccount,
            rowHeader: true,
            cell: (r) => `${r.statement.name} (${r.statement.account_id})`,
          },
          { header: t.colBalance, cell: (r) => (r.bucket === 'main' ? t.main : t.international) },
          { header: t.colMessages, cell: (r) => onMain(r, r.statement.messages.total) },
          { header: t.colSms, cell: (r) => onMain(r, r.statement.messages.sms) },
          {
            header: t.colDelivered,
            cell: (r) => onMain(r, r.statement.messages.by_state.delivered?.messages ?? 0),
          },
          {
            header: t.colFailed,
            cell: (r) =>
              onMain(
                r,
                (r.statement.messages.by_state.failed?.messages ?? 0) +
                  (r.statement.messages.by_state.expired?.messages ?? 0),
              ),
          },
          ...creditKeys.map((k) => ({ header: t[k], class: `credit-${k}`, cell: (r: Row) => r.credit[k] })),
        ]}
      />
    </>
  );
}

/** The statements as a CSV download (the CLI's `--csv`, the same writer and guard). */
export function sendStatementCsv(
  reply: FastifyReply,
  filename: string,
  statements: readonly Statement[],
): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(statementsCsv(statements));
}
