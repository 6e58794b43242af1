/** The parts of an import form: the CSV fields, and the report of what was added and what was not. */
import type { PanelState } from '../context.js';
import type { Lang } from '../catalogue.js';
import { kitText } from './text.js';
import { Table } from './table.js';
import { FieldError } from './fields.js';
import { PostForm } from './post-form.js';
import type { ImportReport } from '../../services/panel/account/csv-import.js';

/** The file input and the CSV textarea it fills (the file is read in the browser: the form posts text). */
export function CsvFields(props: { lang: Lang; id: string; value?: string }) {
  const t = kitText[props.lang];
  return (
    <>
      <label for={`${props.id}-file`}>{t.csvFile}</label>
      <input id={`${props.id}-file`} type="file" accept=".csv,text/csv,text/plain" data-csv-into={`${props.id}-text`} />
      <label for={`${props.id}-text`}>{t.csvContent}</label>
      <textarea id={`${props.id}-text`} name="csv" rows={4} aria-describedby={`${props.id}-help`}>
        {props.value ?? ''}
      </textarea>
      <p class="help" id={`${props.id}-help`}>
        {t.csvHelp}
      </p>
    </>
  );
}

/** The rows an import refused, by line: the value read and why it was refused. */
export function RejectedTable<R extends { line: number; value: string }>(props: {
  lang: Lang;
  rows: readonly R[];
  reason: (row: R) => string;
}) {
  const t = kitText[props.lang];
  return (
    <Table<R>
      rows={props.rows}
      rowKey={(r) => `${r.line}-${r.value}`}
      columns={[
        { header: t.colLine, cell: (r) => r.line },
        { header: t.colValue, cell: (r) => r.value },
        { header: t.colReason, cell: props.reason },
      ]}
    />
  );
}

export function ImportResult(props: { lang: Lang; report: ImportReport | null }) {
  const { report } = props;
  if (!report) return null;
  const t = kitText[props.lang];
  const reason = {
    exists: t.reasonExists,
    repeated: t.reasonRepeated,
    invalid: t.reasonInvalid,
    'not-mobile': t.reasonNotMobile,
  } as const;
  return (
    <section aria-labelledby="import-report" role="status">
      <h2 id="import-report">{t.reportAdded(report.added)}</h2>
      {report.rejected.length > 0 && (
        <>
          <p>{t.reportRejected(report.rejected.length)}</p>
          <RejectedTable lang={props.lang} rows={report.rejected} reason={(r) => reason[r.reason]} />
        </>
      )}
    </section>
  );
}

/**
 * A form that adds numbers typed (one per line) or from a CSV, and the report of the last
 * import under it. Its fields are `${id}-numbers`, `${id}-csv-…` and `${id}-error`.
 */
export function ImportForm(props: {
  action: string;
  state: PanelState;
  id: string;
  label: string;
  help?: string;
  submit: string;
  numbers: string;
  csv: string;
  error?: string | undefined;
  report?: ImportReport | undefined;
}) {
  const { id, state } = props;
  const lang = state.lang;
  const described = [props.help === undefined ? '' : `${id}-numbers-help`, props.error ? `${id}-error` : '']
    .filter((x) => x !== '')
    .join(' ');
  return (
    <>
      <PostForm action={props.action} state={state}>
        <label for={`${id}-numbers`}>{props.label}</label>
        <textarea
          id={`${id}-numbers`}
          name="numbers"
          rows={3}
          aria-describedby={described === '' ? undefined : described}
        >
          {props.numbers}
        </textarea>
        {props.help !== undefined && (
          <p class="help" id={`${id}-numbers-help`}>
            {props.help}
          </p>
        )}
        <CsvFields lang={lang} id={`${id}-csv`} value={props.csv} />
        <FieldError id={`${id}-error`} text={props.error} state={state} />
        <button type="submit">{props.submit}</button>
      </PostForm>
      <ImportResult lang={lang} report={props.report ?? null} />
    </>
  );
}
