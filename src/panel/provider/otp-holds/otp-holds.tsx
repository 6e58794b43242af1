/**
 * The provider console's OTP holds: the prefixes the conversion watch holds, with a button
 * to release each (as `haberci admin otp release`, audited).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderArea, ProviderDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { RowAction } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { field, idOf, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { providerOtpHoldMessages } from './catalogue.js';
import type { OtpHoldView } from '../../../services/otp-settings.js';
import { NotFound, found } from '../../kit/not-found.js';

async function holdsPage(request: FastifyRequest, reply: FastifyReply, door: ProviderDoor): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerOtpHoldMessages[lang];
  const query = queryOf(request.query);
  const released = query.released !== undefined && /^\d{1,8}$/.test(query.released) ? query.released : undefined;
  const holds = await door.of(request).console.otpHolds();
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <Notice text={released === undefined ? undefined : t.released(released)} />
        <p>{t.intro}</p>
        <Table<OtpHoldView>
          rows={holds}
          rowKey={(h) => `${h.key_id}-${h.prefix}-${h.held_at}`}
          empty={t.none}
          columns={[
            { header: t.colPrefix, rowHeader: true, cell: (h) => `+${h.prefix}` },
            {
              header: t.colAccount,
              cell: (h) => <a href={`/panel/provider/accounts/${h.account_id}`}>{h.account_id}</a>,
            },
            { header: t.colKey, cell: (h) => String(h.key_id) },
            { header: t.colHeldAt, cell: (h) => dateTime(h.held_at, lang) },
            {
              header: t.colCounts,
              cell: (h) => t.counts(h.sent, h.verified, h.verified_percent, h.previous_sent),
            },
            {
              header: t.colAction,
              hiddenHeader: true,
              cell: (h) => (
                <RowAction
                  action="/panel/provider/otp-holds/release"
                  state={state}
                  label={t.release(h.prefix, h.key_id)}
                  fields={{ key: String(h.key_id), prefix: h.prefix }}
                  formClass="inline"
                />
              ),
            },
          ]}
        />
      </>
    ),
  });
}

export const providerOtpHoldsArea: ProviderArea = pageArea({
  name: 'provider-otp-holds',
  path: '/provider/otp-holds',
  messages: providerOtpHoldMessages,
  order: 70,
  page: holdsPage,
  routes(app, door) {
    app.post('/provider/otp-holds/release', async (request, reply) => {
      const keyId = idOf(field(request.body, 'key'));
      const prefix = field(request.body, 'prefix');
      if (!/^\d{1,8}$/.test(prefix)) throw new NotFound('no such prefix');
      await found(door.of(request).console.releaseOtpHold(keyId, prefix));
      return reply.redirect(`/panel/provider/otp-holds?released=${prefix}`, 303);
    });
  },
});
