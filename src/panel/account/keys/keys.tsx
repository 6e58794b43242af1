/** API keys: the list; a key's own pages are key-page.tsx (with its webhook) and key-create.tsx. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { keysMessages } from './catalogue.js';
import { kitText } from '../../kit/text.js';
import { Table } from '../../kit/table.js';
import { dateTime, stateLabel } from '../../kit/format.js';
import type { PanelKeyView } from '../../../services/panel/account/keys.js';
import { permissionsText } from './permissions.js';
import { keyPage, keyPageRoutes } from './key-page.js';
import { keyCreateRoutes } from './key-create.js';
import { webhookRoutes } from './webhook.js';

async function listPage(request: FastifyRequest, reply: FastifyReply, door: AccountDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = keysMessages[lang];
  const c = kitText[lang];
  const keys = await door.of(request).keys.list();
  const limit = (n: number): string => (n > 0 ? String(n) : t.unlimited);
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
        <Table<PanelKeyView>
          cards
          rows={keys}
          rowKey={(k) => k.id}
          empty={t.none}
          columns={[
            {
              header: t.colKey,
              rowHeader: true,
              cell: (k) => (
                <>
                  {t.keyLabel(k.id, k.key_hint)}
                  {k.sandbox && <span class="muted"> · {t.sandbox}</span>}
                </>
              ),
            },
            { header: t.colState, class: 'state', cell: (k) => stateLabel(k.state, lang) },
            { header: t.colPermissions, cell: (k) => permissionsText(lang, k) },
            {
              header: t.colLimits,
              cell: (k) => t.limitsText(limit(k.hourly_limit), limit(k.daily_limit), limit(k.monthly_limit)),
            },
            { header: t.colAllowlist, cell: (k) => (k.ip_allow.length > 0 ? k.ip_allow.join(', ') : c.none) },
            { header: t.colExpires, cell: (k) => k.expires ?? c.never },
            { header: t.colLastUsed, cell: (k) => (k.last_used === null ? c.never : dateTime(k.last_used, lang)) },
            { header: t.colActions, cell: (k) => <a href={`/panel/keys/${k.id}`}>{t.manage(k.id)}</a> },
          ]}
        />
      </>
    ),
  });
}

export const keysArea: AccountArea = pageArea({
  name: 'keys',
  path: '/keys',
  messages: keysMessages,
  order: 70,
  page: listPage,
  routes(app, door) {
    keyCreateRoutes(app, door);
    keyPageRoutes(app, door);
    webhookRoutes(app, door, (request, reply, id, posted) => keyPage(request, reply, door, id, { webhook: posted }));
  },
});
