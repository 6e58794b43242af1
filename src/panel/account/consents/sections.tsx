/** The parts of the Consents page: a number's records, the import report, the sync state and the RETs by reply. */
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { RejectedTable } from '../../kit/csv-fields.js';
import { dateTime } from '../../kit/format.js';
import { consentMessages } from './catalogue.js';
import type { ConsentEntry, SyncState } from '../../../ports/consent-store.js';
import type {
  AccountIysState,
  ConsentImportReport,
  ConsentRowReason,
} from '../../../services/panel/account/consents.js';

export function syncStateText(lang: Lang, state: SyncState): string {
  const t = consentMessages[lang];
  return { synced: t.stateSynced, pending: t.statePending, failed: t.stateFailed, from_iys: t.stateFromIys }[state];
}

export function reasonText(lang: Lang, reason: ConsentRowReason): string {
  const t = consentMessages[lang];
  return {
    object: t.reasonObject,
    recipient: t.reasonRecipient,
    status: t.reasonStatus,
    recipient_type: t.reasonType,
    source: t.reasonSource,
    source_iys: t.reasonSourceIys,
    consent_date: t.reasonDate,
    future: t.reasonFuture,
    older: t.reasonOlder,
  }[reason];
}

/** A number's records: one row per recipient type, with its source, date and sync state. */
export function NumberRecords(props: { lang: Lang; recipient: string; entries: readonly ConsentEntry[] }) {
  const { lang, recipient, entries } = props;
  const t = consentMessages[lang];
  return (
    <section aria-labelledby="consent-found" role="status">
      <h2 id="consent-found">{t.searchTitle(recipient)}</h2>
      <Table<ConsentEntry>
        rows={[...entries]}
        rowKey={(e) => e.recipientType}
        empty={t.searchNone(recipient)}
        columns={[
          { header: t.colType, rowHeader: true, cell: (e) => e.recipientType },
          { header: t.colStatus, cell: (e) => e.status },
          { header: t.colSource, cell: (e) => e.source },
          { header: t.colDate, cell: (e) => dateTime(e.consentDate, lang, 'second') },
          { header: t.colSync, cell: (e) => syncStateText(lang, e.syncState) },
          { header: t.colError, cell: (e) => e.syncError ?? '' },
        ]}
      />
    </section>
  );
}

export function ImportReportView(props: { lang: Lang; report: ConsentImportReport }) {
  const { lang, report } = props;
  const t = consentMessages[lang];
  return (
    <section aria-labelledby="consent-report" role="status">
      <h3 id="consent-report">{t.reportAdded(report.added)}</h3>
      {report.rejectedCount > 0 && (
        <>
          <p>{t.reportRejected(report.rejectedCount)}</p>
          <RejectedTable lang={lang} rows={report.rejected} reason={(r) => reasonText(lang, r.reason)} />
          {report.rejectedCount > report.rejected.length && (
            <p>{t.reportMore(report.rejectedCount - report.rejected.length)}</p>
          )}
        </>
      )}
    </section>
  );
}

export function SyncStateView(props: { lang: Lang; state: AccountIysState }) {
  const { lang, state } = props;
  const t = consentMessages[lang];
  const { codes, sync } = state;
  return (
    <section aria-labelledby="consent-sync">
      <h2 id="consent-sync">{t.syncTitle}</h2>
      {codes === null ? (
        <p>{t.notConfigured}</p>
      ) : (
        <>
          <p>{t.codes(codes.iysCode, codes.brandCode)}</p>
          {!codes.syncing && <p>{t.notSyncing}</p>}
          <p>{codes.refuseTextRules ? t.rulesRefuse : t.rulesWarn}</p>
        </>
      )}
      <dl class="figures" aria-label={t.syncTitle}>
        <dt>{t.pending}</dt>
        <dd>{sync.pending}</dd>
        <dt>{t.synced}</dt>
        <dd>{sync.synced}</dd>
        <dt>{t.failed}</dt>
        <dd>{sync.failed}</dd>
        <dt>{t.fromIys}</dt>
        <dd>{sync.fromIys}</dd>
        <dt>{t.lastError}</dt>
        <dd>{sync.lastError ?? t.noError}</dd>
      </dl>
    </section>
  );
}

export function RetsView(props: { lang: Lang; rets: readonly ConsentEntry[] }) {
  const { lang } = props;
  const t = consentMessages[lang];
  return (
    <section aria-labelledby="consent-rets">
      <h2 id="consent-rets">{t.retsTitle}</h2>
      <Table<ConsentEntry>
        rows={[...props.rets]}
        rowKey={(e) => e.recipient}
        empty={t.retsNone}
        columns={[
          { header: t.colNumber, rowHeader: true, cell: (e) => e.recipient },
          { header: t.colReceived, cell: (e) => dateTime(e.consentDate, lang, 'second') },
          { header: t.colSync, cell: (e) => syncStateText(lang, e.syncState) },
        ]}
      />
    </section>
  );
}
