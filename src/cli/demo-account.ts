import type { AppContainer } from '../main.js';
import { randomBytes } from 'node:crypto';
import { defaultKeySettings } from '../services/admin.js';
import { UserService } from '../services/panel/users.js';

/** The demo account's panel user: its password, like the key, is shown this once. */
const demoEmail = 'demo@haberci.local';

/** On first start with an empty store: a demo account, sender ID, sandbox key and panel user, shown once. */
export async function createDemo(container: AppContainer, address: string, panel: boolean): Promise<void> {
  if (await container.store.accounts.hasAccounts()) return;
  const account = await container.admin.createAccount({
    name: 'Demo',
    balanceMain: 1000,
    balanceInternational: 100,
    perMinuteLimit: 0,
    otpBrand: 'Haberci',
    ipAllow: [],
    globalSending: false,
  });
  await container.admin.addSenderId(account.id, 'HABERCI', 'approved');
  const key = await container.admin.createKey(account.id, { ...defaultKeySettings, sandbox: true });
  const password = randomBytes(12).toString('base64url');
  await new UserService(container.store, container.clock).create({ accountId: account.id, email: demoEmail, password });
  const panelUrl = `${address}/panel/`;
  const curl = `curl -s -X POST ${address}/balance/ -H 'Content-Type: application/json' -d '{"api_key":"${key.api_key}"}'`;
  if (process.stdout.isTTY) {
    process.stdout.write(
      [
        '',
        `First start: created demo account ${account.id} (1000 SMS credit, sender ID HABERCI) and a sandbox key.`,
        'The key is shown only this once; keep it:',
        '',
        `  ${key.api_key}`,
        '',
        'Try it:',
        `  ${curl}`,
        '',
        ...(panel
          ? [`Panel: ${panelUrl}`, `  sign in as ${demoEmail} with the password ${password} (shown only this once)`, '']
          : []),
      ].join('\n') + '\n',
    );
    return;
  }
  // Not a terminal: stdout is a stream of JSON lines (a log collector's), and this is one
  // of them, whatever the log level. The key is its `demo_api_key`, shown this once.
  const line = {
    level: 30,
    time: Date.now(),
    service: 'haberci',
    msg: 'first start: created a demo account and a sandbox key; the key is shown only this once',
    demo_account_id: account.id,
    demo_sender_id: 'HABERCI',
    demo_api_key: key.api_key,
    try: curl,
    ...(panel ? { panel_url: panelUrl, demo_panel_email: demoEmail, demo_panel_password: password } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
