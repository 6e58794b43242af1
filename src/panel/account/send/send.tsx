/**
 * Send SMS: sender ID, recipients (typed, pasted, a CSV, a group), the text with a live
 * counter, an optional schedule, and the cost shown before the confirming button. The
 * blocking list applies here (and only here): blocked numbers are listed as skipped.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { Field, FieldError, described } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { field } from '../../kit/forms.js';
import { csvErrorText, importBodyLimit } from '../../kit/csv.js';
import { CsvFields } from '../../kit/csv-fields.js';
import { PageScripts } from '../../kit/scripts.js';
import { sendMessages } from './catalogue.js';
import { Preview, encodingLabel, errorText } from './preview.js';
import { countText } from '../../../domain/sms-counter.js';
import { recipientTypes } from '../../../domain/iys.js';
import type { PanelSendInput, SendError, SendField, SendPreview } from '../../../services/panel/account/send.js';
import { readNumberCsv } from '../../../services/panel/account/csv-import.js';
import type { CsvEntry } from '../../../services/panel/account/csv-import.js';
import { controlsInput, emptyControls } from '../../../services/panel/account/send-shaping.js';
import { normaliseNumber } from '../../../domain/recipients.js';
import { ControlsFieldset, controlsOf } from './controls.js';

/** The CSV's columns by normalised number (a template's fields). */
function csvFieldsOf(entries: readonly CsvEntry[]): Map<string, Record<string, string>> {
  const fields = new Map<string, Record<string, string>>();
  for (const e of entries) if (e.fields) fields.set(normaliseNumber(e.value), e.fields);
  return fields;
}

interface FormState {
  input: PanelSendInput;
  csv: string;
  errors: Partial<Record<SendField, string>>;
  preview: SendPreview | null;
}

async function formPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  form: FormState,
  status = 200,
): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = sendMessages[lang];
  const mine = door.of(request);
  const [senders, groups, templates] = await Promise.all([
    mine.send.approvedSenders(),
    mine.groups.list(),
    mine.templates.list(),
  ]);
  const { input, errors, preview } = form;
  const count = countText(input.text);
  const canConfirm = preview !== null && Object.keys(errors).length === 0;
  return sendPage(request, reply, {
    title: t.title,
    status,
    body: (
      <>
        <PageScripts />
        <PostForm action="/panel/send" state={request.panel} class="send-form">
          <Field id="send-sender" label={t.sender} error={errors.sender} state={request.panel} class="field">
            {senders.length === 0 && <p>{t.noSenders}</p>}
            <select id="send-sender" name="sender" required {...described('send-sender', errors.sender)}>
              {senders.map((s) => (
                <option value={s} selected={s === input.sender}>
                  {s}
                </option>
              ))}
            </select>
          </Field>
          <Field
            id="send-recipients"
            label={t.recipients}
            error={errors.recipients}
            state={request.panel}
            class="field"
          >
            <textarea
              id="send-recipients"
              name="numbers"
              rows={4}
              {...described('send-recipients', errors.recipients, 'send-recipients-help')}
            >
              {input.numbers}
            </textarea>
            <p class="help" id="send-recipients-help">
              {t.recipientsHelp}
            </p>
            <CsvFields lang={lang} id="send-csv" value={form.csv} />
          </Field>
          <Field id="send-group" label={t.group} error={errors.group} state={request.panel} class="field">
            <select id="send-group" name="group" {...described('send-group', errors.group)}>
              <option value="">{t.noGroup}</option>
              {groups.map((g) => (
                <option value={String(g.id)} selected={g.id === input.groupId}>
                  {g.name} ({g.contacts})
                </option>
              ))}
            </select>
          </Field>
          <Field id="send-template" label={t.template} error={errors.template} state={request.panel} class="field">
            <select
              id="send-template"
              name="template"
              {...described('send-template', errors.template, 'send-template-help')}
            >
              <option value="">{t.noTemplate}</option>
              {templates.map((tm) => (
                <option value={String(tm.template_id)} selected={tm.template_id === input.templateId}>
                  {tm.name}
                </option>
              ))}
            </select>
            <p class="help" id="send-template-help">
              {t.templateHelp}
            </p>
          </Field>
          <Field id="send-text" label={t.text} error={errors.text} state={request.panel} class="field">
            <textarea id="send-text" name="text" rows={6} {...described('send-text', errors.text, 'send-counter')}>
              {input.text}
            </textarea>
            <p
              id="send-counter"
              role="status"
              aria-live="polite"
              data-template={t.counter(1111111, 2222222, '%E')}
              data-label-gsm7={t.encodingGsm7}
              data-label-turkish={t.encodingTurkish}
              data-label-ucs2={t.encodingUcs2}
              data-characters={String(count.characters)}
              data-parts={String(count.parts)}
              data-encoding={count.encoding}
            >
              {t.counter(count.characters, count.parts, encodingLabel(lang, count.encoding))}
            </p>
          </Field>
          <Field id="send-links" label={t.shortLinks} error={errors.links} state={request.panel} class="field">
            <input
              id="send-links"
              type="checkbox"
              name="short_links"
              value="1"
              checked={input.shortLinks === true}
              {...described('send-links', errors.links)}
            />
          </Field>
          <Field id="send-schedule" label={t.schedule} error={errors.schedule} state={request.panel} class="field">
            <input
              id="send-schedule"
              name="schedule"
              type="datetime-local"
              value={input.schedule}
              {...described('send-schedule', errors.schedule)}
            />
          </Field>
          <fieldset class="field" aria-describedby="send-iys-help">
            <legend>{t.commercial}</legend>
            <label>
              <input type="checkbox" name="iys" value="1" checked={input.commercial !== null} /> {t.commercial}
            </label>
            <label for="send-iys-type">{t.recipientType}</label>
            <select id="send-iys-type" name="iys_recipient_type">
              {recipientTypes.map((type) => (
                <option value={type} selected={(input.commercial ?? 'BIREYSEL') === type}>
                  {type === 'BIREYSEL' ? t.typeBireysel : t.typeTacir}
                </option>
              ))}
            </select>
            <p class="help" id="send-iys-help">
              {t.commercialHelp}
            </p>
          </fieldset>
          <ControlsFieldset
            lang={lang}
            state={request.panel}
            value={input.controls ?? emptyControls}
            errors={{ window: errors.window, speed: errors.speed, validity: errors.validity }}
            id="send-controls"
          />
          {/* The fields above showed the account's defaults: one emptied is none for this send. */}
          <input type="hidden" name="controls_shown" value="1" />
          {errors.balance !== undefined && (
            <FieldError id="send-balance-error" text={errors.balance} state={request.panel} />
          )}
          {preview !== null && <Preview lang={lang} p={preview} />}
          <p>
            <button type="submit">{t.checkCost}</button>{' '}
            {canConfirm && (
              <button type="submit" name="confirm" value="1" class="primary">
                {t.confirm}
              </button>
            )}
          </p>
        </PostForm>
      </>
    ),
  });
}

function inputOf(body: unknown): { input: PanelSendInput; csv: string } {
  const group = field(body, 'group');
  const template = field(body, 'template');
  return {
    input: {
      sender: field(body, 'sender'),
      numbers: field(body, 'numbers'),
      csvNumbers: [],
      groupId: /^[1-9]\d{0,9}$/.test(group) ? Number(group) : null,
      text: field(body, 'text'),
      schedule: field(body, 'schedule'),
      commercial:
        field(body, 'iys') === '1' ? (field(body, 'iys_recipient_type') === 'TACIR' ? 'TACIR' : 'BIREYSEL') : null,
      controls: controlsOf(body),
      controlsShown: field(body, 'controls_shown') === '1',
      // A 32-bit serial: a wider id is no template (PostgreSQL would refuse the cast).
      templateId: /^[1-9]\d{0,9}$/.test(template) && Number(template) <= 2_147_483_647 ? Number(template) : null,
      shortLinks: field(body, 'short_links') === '1',
    },
    csv: field(body, 'csv'),
  };
}

export const sendArea: AccountArea = pageArea({
  name: 'send',
  path: '/send',
  messages: sendMessages,
  order: 20,
  page: async (request, reply, door) =>
    formPage(request, reply, door, {
      input: {
        sender: '',
        numbers: '',
        csvNumbers: [],
        groupId: null,
        text: '',
        schedule: '',
        commercial: null,
        // The account's defaults, prefilled: a send takes them unless changed (or emptied) here.
        controls: controlsInput(await door.of(request).send.defaults()),
      },
      csv: '',
      errors: {},
      preview: null,
    }),
  routes(app, door) {
    app.post('/send', { bodyLimit: importBodyLimit }, async (request, reply) => {
      const lang = request.panel.lang;
      const { input, csv } = inputOf(request.body);
      const errors: Partial<Record<SendField, string>> = {};
      if (csv.trim() !== '') {
        const read = readNumberCsv(csv, { columns: input.templateId !== null });
        if (read.ok) {
          input.csvNumbers = read.entries.map((e) => e.value);
          if (input.templateId !== null) input.csvFields = csvFieldsOf(read.entries);
        } else errors.recipients = csvErrorText(read.error, lang);
      }
      const send = door.of(request).send;
      const wantsSend = field(request.body, 'confirm') === '1' && errors.recipients === undefined;
      const outcome = wantsSend ? await send.send(input) : await send.preview(input);
      if (outcome.ok && 'sendId' in outcome) return reply.redirect(`/panel/campaigns/${outcome.sendId}?sent=1`, 303);
      if (!outcome.ok)
        for (const [k, e] of Object.entries(outcome.errors) as [SendField, SendError][])
          errors[k] ??=
            errorText(lang, k, e) +
            (k === 'template' && outcome.preview?.missing ? `: ${outcome.preview.missing}` : '');
      const status = Object.keys(errors).length > 0 ? 400 : 200;
      return formPage(request, reply, door, { input, csv, errors, preview: outcome.preview }, status);
    });
  },
});
