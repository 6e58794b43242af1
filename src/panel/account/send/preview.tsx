/** What the send form says of a send before it is made: the cost and what is skipped, and its errors by field. */
import type { Lang } from '../../catalogue.js';
import { dateTime } from '../../kit/format.js';
import { sendMessages } from './catalogue.js';
import { controlsErrorText, controlsText } from './controls.js';
import type { Encoding } from '../../../domain/sms-counter.js';
import type { SendError, SendField, SendPreview } from '../../../services/panel/account/send.js';

export function encodingLabel(lang: Lang, e: Encoding): string {
  const t = sendMessages[lang];
  return { gsm7: t.encodingGsm7, turkish: t.encodingTurkish, ucs2: t.encodingUcs2 }[e];
}

export function errorText(lang: Lang, field: SendField, e: SendError): string {
  const t = sendMessages[lang];
  if (field === 'recipients' && e === 'required') return t.errNoRecipients;
  if (field === 'window' || field === 'speed' || field === 'validity') return controlsErrorText(lang, field);
  if (field === 'links') return t.errLinks;
  return {
    required: t.errRequired,
    'not-approved': t.errNotApproved,
    'not-found': t.errNotFound,
    'too-long': t.errTooLong,
    'too-many': t.errTooMany,
    invalid: t.errInvalid,
    past: t.errPast,
    insufficient: t.errInsufficient,
    'text-rules': t.errTextRules,
    'missing-field': t.errMissingField,
  }[e];
}

export function Preview(props: { lang: Lang; p: SendPreview }) {
  const t = sendMessages[props.lang];
  const { p } = props;
  return (
    <section aria-labelledby="preview-title" class="card" role="status">
      <h2 id="preview-title">{t.previewTitle}</h2>
      <p>
        {t.previewRecipients(p.recipients.length - (p.commercial === null ? 0 : p.commercial.none + p.commercial.ret))}
      </p>
      <p>{t.previewCost(p.cost.total, p.cost.main, p.cost.international)}</p>
      <p>{t.previewBalance(p.balance.main, p.balance.international)}</p>
      {p.scheduledAt !== null && <p>{t.previewScheduled(dateTime(p.scheduledAt, props.lang, 'second'))}</p>}
      {p.controls !== null && <p>{t.previewControls(controlsText(props.lang, p.controls))}</p>}
      {p.sample !== null && (
        <>
          <p>{t.previewSample}</p>
          <pre class="message-text" id="send-sample">
            {p.sample}
          </pre>
        </>
      )}
      {p.commercial !== null && p.commercial.none + p.commercial.ret > 0 && (
        <p>{t.previewLacking(p.commercial.none + p.commercial.ret, p.commercial.none, p.commercial.ret)}</p>
      )}
      {p.commercial !== null && p.commercial.gaps.length > 0 && (
        <ul class="warnings">
          {p.commercial.gaps.map((g) => (
            <li key={g}>{g === 'sender' ? t.gapSender : t.gapOptOut}</li>
          ))}
        </ul>
      )}
      {p.blocked.length > 0 && (
        <>
          <p>{t.skippedBlocked(p.blocked.length)}</p>
          <ul aria-label={t.skippedBlocked(p.blocked.length)}>
            {p.blocked.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </>
      )}
      {p.invalid.length > 0 && (
        <>
          <p>{t.skippedInvalid(p.invalid.length)}</p>
          <ul>
            {p.invalid.slice(0, 100).map((n, i) => (
              <li key={`${i}-${n}`}>{n}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
