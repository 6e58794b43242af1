/** The provider console's home: where a provider user lands after sign-in. */
import type { ProviderArea } from '../door.js';
import { sendPage } from '../../layout.js';
import { providerHomeMessages } from './catalogue.js';
import { pendingPageSize } from '../../../services/panel/provider/provider-console.js';

export const providerHomeArea: ProviderArea = {
  name: 'provider-home',
  routes(app, door) {
    app.get('/provider', async (request, reply) => {
      const t = providerHomeMessages[request.panel.lang];
      const pending = await door.of(request).console.pendingSenderIds(undefined);
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
                <a href="/panel/provider/otp-holds">{t.otpHolds}</a>
                <p class="muted">{t.otpHoldsText}</p>
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
