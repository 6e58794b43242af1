import type { DemoAccount } from '../main.js';

/** Shows the demo account of a first start (main.ts creates it): its key and panel password, this once. */
export function showDemo(demo: DemoAccount, address: string, panel: boolean): void {
  const panelUrl = `${address}/panel/`;
  const curl = `curl -s -X POST ${address}/balance/ -H 'Content-Type: application/json' -d '{"api_key":"${demo.apiKey}"}'`;
  if (process.stdout.isTTY) {
    process.stdout.write(
      [
        '',
        `First start: created demo account ${demo.accountId} (${demo.balance} SMS credit, sender ID ${demo.senderId}) and a sandbox key.`,
        'The key is shown only this once; keep it:',
        '',
        `  ${demo.apiKey}`,
        '',
        'Try it:',
        `  ${curl}`,
        '',
        ...(panel
          ? [
              `Panel: ${panelUrl}`,
              `  sign in as ${demo.email} with the password ${demo.password} (shown only this once)`,
              '',
            ]
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
    demo_account_id: demo.accountId,
    demo_sender_id: demo.senderId,
    demo_api_key: demo.apiKey,
    try: curl,
    ...(panel ? { panel_url: panelUrl, demo_panel_email: demo.email, demo_panel_password: demo.password } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
