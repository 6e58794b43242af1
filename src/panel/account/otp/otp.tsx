/**
 * The OTP page: codes sent and verified by day and by destination prefix, the prefixes
 * the conversion watch holds, the blocked attempts, and each key's OTP settings with a page
 * to change them (`/otp/keys/:id`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import type { PanelState } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField, Notice } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { field, idOf, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { otpMessages } from './catalogue.js';
import type { OtpCount, OtpRefusalRow } from '../../../ports/otp-store.js';
import type { OtpHoldView } from '../../../services/otp-settings.js';
import type { CustomerOtpPatch, OtpDay, OtpKeySettings } from '../../../services/panel/account/otp.js';
import { maxOtpMaxTries, maxOtpValiditySeconds, minOtpValiditySeconds } from '../../../domain/otp-check.js';
import { allCountries, parseCountries } from '../../../domain/otp-guard.js';
import { found } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

function percent(sent: number, verified: number): string {
  return sent === 0 ? '–' : `${Math.round((verified * 100) / sent)}%`;
}

async function otpPage(request: FastifyRequest, reply: FastifyReply, door: AccountDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = otpMessages[lang];
  const data = await door.of(request).otp.page();
  const limit = (n: number): string => (n > 0 ? String(n) : t.noLimit);
  const anySent = data.days.some((d) => d.sent > 0);
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <p>{t.intro}</p>
        <Notice text={queryOf(request.query).done === 'saved' ? t.saved : undefined} />
        <section aria-labelledby="otp-holds" class="card">
          <h2 id="otp-holds">{t.holdsTitle}</h2>
          <p class="muted">{t.holdsIntro}</p>
          <Table<OtpHoldView>
            rows={data.holds}
            rowKey={(h) => `${h.key_id}-${h.prefix}-${h.held_at}`}
            empty={t.noHolds}
            columns={[
              { header: t.colPrefix, rowHeader: true, cell: (h) => `+${h.prefix}` },
              { header: t.colKey, cell: (h) => String(h.key_id) },
              { header: t.colHeldAt, cell: (h) => dateTime(h.held_at, lang) },
              { header: t.colWhy, cell: (h) => t.heldWhy(h.sent, h.verified, h.verified_percent) },
            ]}
          />
        </section>
        <section aria-labelledby="otp-days">
          <h2 id="otp-days">{t.byDay}</h2>
          {anySent ? (
            <Table<OtpDay>
              rows={data.days}
              rowKey={(d) => d.day}
              columns={[
                { header: t.colDay, rowHeader: true, cell: (d) => new Date(d.day).toISOString().slice(0, 10) },
                { header: t.colSent, cell: (d) => String(d.sent) },
                { header: t.colVerified, cell: (d) => String(d.verified) },
                { header: t.colConversion, cell: (d) => percent(d.sent, d.verified) },
              ]}
            />
          ) : (
            <p>{t.noCodes}</p>
          )}
        </section>
        <section aria-labelledby="otp-prefixes">
          <h2 id="otp-prefixes">{t.byPrefix}</h2>
          <Table<OtpCount>
            rows={data.prefixes}
            rowKey={(p) => p.bucket}
            empty={t.noCodes}
            columns={[
              { header: t.colPrefix, rowHeader: true, cell: (p) => `+${p.bucket}` },
              { header: t.colSent, cell: (p) => String(p.sent) },
              { header: t.colVerified, cell: (p) => String(p.verified) },
              { header: t.colConversion, cell: (p) => percent(p.sent, p.verified) },
            ]}
          />
        </section>
        <section aria-labelledby="otp-blocked">
          <h2 id="otp-blocked">{t.blockedTitle}</h2>
          <Table<OtpRefusalRow>
            rows={data.blocked}
            rowKey={(r) => `${r.at}-${r.keyId}-${r.destination}`}
            empty={t.noBlocked}
            columns={[
              { header: t.colAt, rowHeader: true, cell: (r) => dateTime(r.at, lang, 'second') },
              { header: t.colKey, cell: (r) => String(r.keyId) },
              { header: t.colReason, cell: (r) => t.reason(r.reason) },
              { header: t.colNumber, cell: (r) => `+${r.destination}` },
            ]}
          />
        </section>
        <section aria-labelledby="otp-settings">
          <h2 id="otp-settings">{t.settingsTitle}</h2>
          {data.accountCountries !== null && (
            <p>{t.providerCountries(data.accountCountries.map((c) => `+${c}`).join(', '))}</p>
          )}
          <Table<OtpKeySettings>
            cards
            rows={data.keys}
            rowKey={(k) => k.key_id}
            columns={[
              { header: t.colKey, rowHeader: true, cell: (k) => t.keyLabel(k.key_id, k.key_hint) },
              { header: t.colValidity, cell: (k) => t.seconds(k.validity_seconds) },
              { header: t.colTries, cell: (k) => String(k.max_tries) },
              {
                header: t.colCountries,
                cell: (k) =>
                  k.countries === allCountries ? t.allCountries : k.countries.map((c) => `+${c}`).join(', '),
              },
              {
                header: t.colVelocity,
                cell: (k) =>
                  t.velocity(
                    limit(k.per_number_hour),
                    limit(k.per_number_day),
                    limit(k.per_prefix_minute),
                    t.seconds(k.cooldown_seconds),
                  ) + t.rise(k.prefix_rise, k.prefix_rise_min),
              },
              { header: t.colWatch, cell: (k) => t.watch(k.watch_min_sent, k.watch_min_share, k.watch_rise) },
              {
                header: t.colActions,
                hiddenHeader: true,
                cell: (k) => <a href={`/panel/otp/keys/${k.key_id}`}>{t.change(k.key_id)}</a>,
              },
            ]}
          />
        </section>
      </>
    ),
  });
}

/** The form's fields: their names, and the setting each sets. */
const numberFields = [
  { name: 'validity', setting: 'validitySeconds', min: minOtpValiditySeconds, max: maxOtpValiditySeconds },
  { name: 'tries', setting: 'maxTries', min: 1, max: maxOtpMaxTries },
  { name: 'per_number_hour', setting: 'perNumberHour', min: 0, max: 1_000_000 },
  { name: 'per_number_day', setting: 'perNumberDay', min: 0, max: 1_000_000 },
  { name: 'per_prefix_minute', setting: 'perPrefixMinute', min: 0, max: 1_000_000 },
  { name: 'cooldown', setting: 'cooldownSeconds', min: 0, max: 86_400 },
] as const;

type FormValues = Record<string, string>;
type FormErrors = Record<string, string>;

function readForm(
  body: unknown,
  state: PanelState,
): { ok: Partial<CustomerOtpPatch> } | { values: FormValues; errors: FormErrors } {
  const t = otpMessages[state.lang];
  const values: FormValues = {};
  const errors: FormErrors = {};
  const patch: Partial<CustomerOtpPatch> = {};
  for (const f of numberFields) {
    const raw = field(body, f.name).trim();
    values[f.name] = raw;
    if (raw === '') patch[f.setting] = null;
    else if (/^\d{1,9}$/.test(raw) && Number(raw) >= f.min && Number(raw) <= f.max) patch[f.setting] = Number(raw);
    else errors[f.name] = t.badNumber(f.min, f.max);
  }
  const countries = field(body, 'countries').trim();
  values.countries = countries;
  if (countries === '') patch.countries = null;
  else {
    const list = parseCountries(countries);
    if (list === null) errors.countries = t.badCountries;
    else patch.countries = list;
  }
  return Object.keys(errors).length > 0 ? { values, errors } : { ok: patch };
}

async function editPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  id: number,
  posted?: { values: FormValues; errors: FormErrors },
): Promise<FastifyReply> {
  const state = request.panel;
  const t = otpMessages[state.lang];
  const k = await found(door.of(request).otp.settings(id));
  const stored = (name: string, value: number | string[] | typeof allCountries): string =>
    posted?.values[name] ??
    (k.defaults.includes(settingNames[name] ?? name) || value === allCountries
      ? ''
      : Array.isArray(value)
        ? value.join(',')
        : String(value));
  const input = (name: string, label: string, value: number | string[] | typeof allCountries, hint?: string) => (
    <InputField
      id={`otp-${name}`}
      name={name}
      label={label}
      state={state}
      value={stored(name, value)}
      error={posted?.errors[name]}
      {...(hint !== undefined ? { hint } : {})}
      attributes={{ inputMode: name === 'countries' ? 'text' : 'numeric' }}
    />
  );
  return sendPage(request, reply, {
    title: t.editTitle(id),
    status: posted ? 400 : 200,
    body: (
      <>
        {posted && <Notice kind="error" text={t.fixErrors} />}
        <p>{t.editIntro}</p>
        <PostForm action={`/panel/otp/keys/${id}`} state={state} class="stack">
          {input('validity', t.validity, k.validity_seconds)}
          {input('tries', t.tries, k.max_tries)}
          {input('countries', t.countries, k.countries, t.countriesHint)}
          {input('per_number_hour', t.perNumberHour, k.per_number_hour)}
          {input('per_number_day', t.perNumberDay, k.per_number_day)}
          {input('per_prefix_minute', t.perPrefixMinute, k.per_prefix_minute)}
          {input('cooldown', t.cooldown, k.cooldown_seconds)}
          <div>
            <button type="submit">{t.save}</button>
          </div>
        </PostForm>
        <p>
          <a href="/panel/otp">{t.back}</a>
        </p>
      </>
    ),
  });
}

/** Form field name → the settings view's name (for "left to the default"). */
const settingNames: Record<string, string> = {
  validity: 'validity_seconds',
  tries: 'max_tries',
  countries: 'countries',
  per_number_hour: 'per_number_hour',
  per_number_day: 'per_number_day',
  per_prefix_minute: 'per_prefix_minute',
  cooldown: 'cooldown_seconds',
};

export const otpArea: AccountArea = pageArea({
  name: 'otp',
  path: '/otp',
  messages: otpMessages,
  order: 75,
  page: otpPage,
  routes(app, door) {
    app.get<IdParams>('/otp/keys/:id', async (request, reply) =>
      editPage(request, reply, door, idOf(request.params.id)),
    );
    app.post<IdParams>('/otp/keys/:id', async (request, reply) => {
      const id = idOf(request.params.id);
      const read = readForm(request.body, request.panel);
      if (!('ok' in read)) return editPage(request, reply, door, id, read);
      await found(door.of(request).otp.update(id, read.ok));
      return reply.redirect('/panel/otp?done=saved', 303);
    });
  },
});
