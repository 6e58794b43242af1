/** The data pages' shared components: CSV fields, import reports, their scripts. */
import type { Lang } from '../i18n/messages.js';
import { dataCommon } from '../i18n/data-common.js';
import type { ImportReport } from '../../services/panel/panel-directory.js';

/** The file input and the CSV textarea it fills (the file is read in the browser: the form posts text). */
export function CsvFields(props: { lang: Lang; id: string; value?: string }) {
  const t = dataCommon[props.lang];
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

export function ImportResult(props: { lang: Lang; report: ImportReport | null }) {
  const { report } = props;
  if (!report) return null;
  const t = dataCommon[props.lang];
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
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colLine}</th>
                  <th scope="col">{t.colValue}</th>
                  <th scope="col">{t.colReason}</th>
                </tr>
              </thead>
              <tbody>
                {report.rejected.map((r) => (
                  <tr key={`${r.line}-${r.value}`}>
                    <td>{r.line}</td>
                    <td>{r.value}</td>
                    <td>{reason[r.reason]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** The data pages' own script and uPlot: external files (no inline script), loaded where a page needs them. */
export function DataScripts(props: { chart?: boolean }) {
  return (
    <>
      <link rel="stylesheet" href="/panel/assets/data/data-pages.css" />
      {props.chart && <link rel="stylesheet" href="/panel/assets/uPlot.min.css" />}
      {props.chart && <script src="/panel/assets/uPlot.iife.min.js" defer></script>}
      <script type="module" src="/panel/assets/data/data-pages.js"></script>
    </>
  );
}
