/**
 * The demo account of a first start (`serve --demo`, the default): made only in an empty
 * store, with a sender ID, a sandbox key and a panel user whose password, like the key, is
 * shown once (cli/demo-account.ts prints them).
 */
import { randomBytes } from 'node:crypto';
import { defaultKeySettings } from '../services/admin.js';
import type { AppContainer } from './container.js';
import type { AdminResult } from '../services/admin-result.js';

const demoEmail = 'demo@haberci.local';
const demoSender = 'HABERCI';
const demoBalance = 1000;

export interface DemoAccount {
  accountId: number;
  /** SMS credit it starts with. */
  balance: number;
  senderId: string;
  /** The sandbox key, shown this once. */
  apiKey: string;
  /** The panel user's email and password, shown this once. */
  email: string;
  password: string;
}

/** A step of the demo's making cannot fail on a first start: a failure ends the start with its message. */
function made<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new Error(`the demo account cannot be made: ${result.message}`);
  return result.value;
}

/** Creates the demo account; null when the store already has an account (not a first start). */
export async function createDemoAccount(container: AppContainer): Promise<DemoAccount | null> {
  if (await container.store.accounts.hasAccounts()) return null;
  const account = made(
    await container.admin.createAccount({
      name: 'Demo',
      balanceMain: demoBalance,
      balanceInternational: 100,
      perMinuteLimit: 0,
      otpBrand: 'Haberci',
      ipAllow: [],
      globalSending: false,
    }),
  );
  made(await container.admin.addSenderId(account.id, demoSender, 'approved'));
  const key = made(await container.admin.createKey(account.id, { ...defaultKeySettings, sandbox: true }));
  const password = randomBytes(12).toString('base64url');
  made(await container.panelUsers.create({ accountId: account.id, email: demoEmail, password }));
  return {
    accountId: account.id,
    balance: demoBalance,
    senderId: demoSender,
    apiKey: key.api_key,
    email: demoEmail,
    password,
  };
}
