import type { AppContainer } from '../main.js';
import { defaultKeySettings } from '../services/admin.js';

/** On first start with an empty store: a demo account, sender ID and sandbox key, shown once. */
export async function createDemo(container: AppContainer, address: string): Promise<void> {
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
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
