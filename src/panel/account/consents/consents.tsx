/**
 * Consents (İYS): search a number's records, add one, import a CSV with a report per row,
 * export every record, the account's sync state with İYS and the RETs received by reply.
 * Writes go through CustomerConsents (AccountChanges: audited, refused while suspended).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { Field, FieldError, InputField, Notice } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { field, queryOf } from '../../kit/forms.js';
import { csvErrorText, importBodyLimit, sendCsv } from '../../kit/csv.js';
import { CsvFields } from '../../kit/csv-fields.js';
import { PageScripts } from '../../kit/scripts.js';
import { consentMessages } from './catalogue.js';
import { ImportReportView, NumberRecords, RetsView, SyncStateView, reasonText } from './sections.js';
import { consentStatuses, customerConsentSources, recipientTypes } from '../../../domain/iys.js';
import { localDateTime } from '../../../domain/istanbul-time.js';
import type { ConsentForm, ConsentImportReport } from '../../../services/panel/account/consents.js';

interface PageState {
  form: ConsentForm;
  formError?: string;
  notice?: string;
  csv: string;
  importError?: string;
  report?: ConsentImportReport;
}

async function consentsPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  state: PageState,
  status = 200,
): Promise<FastifyReply> {
  const panel = request.panel;
  const lang = panel.lang;
  const t = consentMessages[lang];
  const mine = door.of(request).consents;
  const q = (queryOf(request.query).number ?? '').trim();
  const [found, iys, rets] = await Promise.all([q === '' ? null : mine.search(q), mine.iysState(), mine.retsByReply()]);
  const { form } = state;
  return sendPage(request, reply, {
    title: t.title,
    status,
    body: (
      <>
        <PageScripts />
        <p>{t.intro}</p>
        <Notice text={state.notice} />
        <form method="get" action="/panel/consents" role="search">
          <label for="consent-search">{t.search}</label>
          <input id="consent-search" name="number" type="search" value={q} inputMode="tel" />
          <button type="submit">{t.searchButton}</button>
        </form>
        {q !== '' && found === null && <p role="alert">{t.searchNotMobile}</p>}
        {found !== null && <NumberRecords lang={lang} recipient={found.recipient} entries={found.entries} />}
        <SyncStateView lang={lang} state={iys} />
        <section aria-labelledby="consent-add">
          <h2 id="consent-add">{t.addTitle}</h2>
          <PostForm action="/panel/consents/add" state={panel}>
            <InputField
              id="consent-recipient"
              name="recipient"
              label={t.recipient}
              state={panel}
              value={form.recipient}
              error={state.formError}
              attributes={{ required: true, inputMode: 'tel' }}
            />
            <Field id="consent-status" label={t.status} state={panel}>
              <select id="consent-status" name="status">
                {consentStatuses.map((status) => (
                  <option value={status} selected={(form.status === 'RET' ? 'RET' : 'ONAY') === status}>
                    {status === 'ONAY' ? t.statusOnay : t.statusRet}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="consent-type" label={t.type} state={panel}>
              <select id="consent-type" name="recipient_type">
                {recipientTypes.map((type) => (
                  <option value={type} selected={form.recipient_type === type}>
                    {type === 'BIREYSEL' ? t.typeBireysel : t.typeTacir}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="consent-source" label={t.source} state={panel}>
              <select id="consent-source" name="source">
                {customerConsentSources.map((s) => (
                  <option value={s} selected={form.source === s}>
                    {s}
                  </option>
                ))}
              </select>
            </Field>
            <InputField
              id="consent-date"
              name="consent_date"
              label={t.date}
              state={panel}
              value={form.consent_date}
              attributes={{ required: true, pattern: '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}' }}
            />
            <button type="submit">{t.add}</button>
          </PostForm>
        </section>
        <section aria-labelledby="consent-import">
          <h2 id="consent-import">{t.importTitle}</h2>
          <PostForm action="/panel/consents/import" state={panel}>
            <p class="help" id="consent-import-help">
              {t.importHelp}
            </p>
            <CsvFields lang={lang} id="consent-csv" value={state.csv} />
            <FieldError id="consent-import-error" text={state.importError} state={panel} />
            <button type="submit">{t.importButton}</button>
          </PostForm>
          {state.report !== undefined && <ImportReportView lang={lang} report={state.report} />}
        </section>
        <section aria-labelledby="consent-export">
          <h2 id="consent-export">{t.exportTitle}</h2>
          <p>
            <a href="/panel/consents/export.csv" download>
              {t.export}
            </a>
          </p>
        </section>
        <RetsView lang={lang} rets={rets} />
      </>
    ),
  });
}

/** An empty add form: ONAY, BIREYSEL, HS_WEB, now (Istanbul time). */
function blankForm(request: FastifyRequest, door: AccountDoor): ConsentForm {
  return {
    recipient: '',
    status: 'ONAY',
    recipient_type: 'BIREYSEL',
    source: 'HS_WEB',
    consent_date: door.of(request).consents.now(),
  };
}

export const consentsArea: AccountArea = pageArea({
  name: 'consents',
  path: '/consents',
  messages: consentMessages,
  order: 65,
  page: (request, reply, door) => consentsPage(request, reply, door, { form: blankForm(request, door), csv: '' }),
  routes(app, door) {
    app.post('/consents/add', async (request, reply) => {
      const t = consentMessages[request.panel.lang];
      const form: ConsentForm = {
        recipient: field(request.body, 'recipient'),
        status: field(request.body, 'status'),
        recipient_type: field(request.body, 'recipient_type'),
        source: field(request.body, 'source'),
        consent_date: field(request.body, 'consent_date').trim(),
      };
      const done = await door.of(request).consents.add(form);
      if (!done.ok)
        return consentsPage(
          request,
          reply,
          door,
          { form, csv: '', formError: reasonText(request.panel.lang, done.problem) },
          400,
        );
      const notice = done.inForce
        ? t.added(done.consent.recipient, `${done.consent.status} (${done.consent.recipientType})`)
        : t.addedOlder(done.consent.recipient);
      return consentsPage(request, reply, door, { form: blankForm(request, door), csv: '', notice });
    });

    app.post('/consents/import', { bodyLimit: importBodyLimit }, async (request, reply) => {
      const lang = request.panel.lang;
      const csv = field(request.body, 'csv');
      const done = await door.of(request).consents.importCsv(csv);
      if (!done.ok) {
        const importError =
          done.error === 'no-columns' ? consentMessages[lang].noColumns : csvErrorText(done.error, lang);
        return consentsPage(request, reply, door, { form: blankForm(request, door), csv, importError }, 400);
      }
      return consentsPage(request, reply, door, { form: blankForm(request, door), csv: '', report: done.report });
    });

    app.get('/consents/export.csv', async (request, reply) =>
      sendCsv(
        reply,
        'consents.csv',
        ['recipient', 'recipient_type', 'status', 'source', 'consent_date', 'sync_state', 'sync_error'],
        door.of(request).consents.exportEntries(),
        (e) => ({
          recipient: e.recipient,
          recipient_type: e.recipientType,
          status: e.status,
          source: e.source,
          consent_date: localDateTime(e.consentDate),
          sync_state: e.syncState,
          sync_error: e.syncError ?? '',
        }),
      ),
    );
  },
});
