/** API keys: the list. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea } from '../context.js';
import { accountIdOf } from '../context.js';
import { sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { keysMessages } from '../i18n/keys.js';
import { common } from '../i18n/common.js';
import type { PanelKeyView } from '../../services/account-panel.js';
import { dateTime, permissionsText, stateLabel } from './key-format.js';
import type { PanelDeps } from '../context.js';
import { keyDetailRoutes } from './key-detail.js';

function KeyRow(props: { lang: Lang; k: PanelKeyView }) {
  const { lang, k } = props;
  const t = keysMessages[lang];
  const c = common[lang];
  const limit = (n: number): string => (n > 0 ? String(n) : t.unlimited);
  return (
    <tr>
      <th scope="row">
        {t.keyLabel(k.id, k.key_hint)}
        {k.sandbox && <span class="muted"> · {t.sandbox}</span>}
      </th>
      <td class="state" data-label={t.colState}>
        {stateLabel(lang, k.state)}
      </td>
      <td data-label={t.colPermissions}>{permissionsText(lang, k)}</td>
      <td data-label={t.colLimits}>
        {t.limitsText(limit(k.hourly_limit), limit(k.daily_limit), limit(k.monthly_limit))}
      </td>
      <td data-label={t.colAllowlist}>{k.ip_allow.length > 0 ? k.ip_allow.join(', ') : c.none}</td>
      <td data-label={t.colExpires}>{k.expires ?? c.never}</td>
      <td data-label={t.colLastUsed}>{dateTime(k.last_used, lang)}</td>
      <td data-label={t.colActions}>
        <a href={`/panel/keys/${k.id}`}>{t.manage(k.id)}</a>
      </td>
    </tr>
  );
}

async function listPage(request: FastifyRequest, reply: FastifyReply, deps: PanelDeps): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = keysMessages[lang];
  const keys = await deps.account.keys(accountIdOf(request.panel));
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <p>{t.intro}</p>
        <p>
          <a class="button" href="/panel/keys/new">
            {t.newKey}
          </a>
        </p>
        {keys.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div class="table-wrap">
            <table class="cards">
              <thead>
                <tr>
                  <th scope="col">{t.colKey}</th>
                  <th scope="col">{t.colState}</th>
                  <th scope="col">{t.colPermissions}</th>
                  <th scope="col">{t.colLimits}</th>
                  <th scope="col">{t.colAllowlist}</th>
                  <th scope="col">{t.colExpires}</th>
                  <th scope="col">{t.colLastUsed}</th>
                  <th scope="col">{t.colActions}</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <KeyRow key={k.id} lang={lang} k={k} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    ),
  });
}

export const keysArea: PanelArea = {
  name: 'keys',
  nav: [{ path: '/keys', label: (lang) => keysMessages[lang].nav, order: 70, for: 'account' }],
  routes(app, deps) {
    app.get('/keys', async (request, reply) => listPage(request, reply, deps));
    keyDetailRoutes(app, deps);
  },
};
