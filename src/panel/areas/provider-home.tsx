/** The provider console's home (issue 22): where a provider user lands after sign-in. */
import type { PanelArea } from '../context.js';
import { providerOnly } from '../context.js';
import { sendPage } from '../layout.js';
import { providerHomeMessages } from '../i18n/provider-home.js';
import { pendingPageSize } from '../../services/console/provider-console.js';

export const providerHomeArea: PanelArea = {
  name: 'provider-home',
  routes(app, deps) {
    app.get('/provider', providerOnly, async (request, reply) => {
      const t = providerHomeMessages[request.panel.lang];
      const pending = await deps.account.console.pendingSenderIds(undefined);
      const waiting = pending.next === null ? String(pending.items.length) : `${pendingPageSize}+`;
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <p>{t.intro}</p>
            <ul class="console-links">
              <li>
                <a href="/panel/provider/accounts">{t.accounts}</a>
                <p class="muted">{t.accountsText}</p>
              </li>
              <li>
                <a href="/panel/provider/sender-ids">{t.senderIds}</a>
                <p class="muted">{t.senderIdsText(waiting)}</p>
              </li>
              <li>
                <a href="/panel/provider/audit">{t.audit}</a>
                <p class="muted">{t.auditText}</p>
              </li>
            </ul>
          </>
        ),
      });
    });
  },
};
