/**
 * The customer panel in-process: an app with the panel on a store, a fixed clock, and
 * `PanelBrowser`s that keep cookies and send forms back with their CSRF token, as a
 * browser does.
 */
import { panelPlugin } from '../../src/panel/plugin.js';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { openAppContainer, webhookAdmin } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import { FixedClock } from '../../src/ports/clock.js';
import { defaultSessionPolicy } from '../../src/services/panel/users.js';
import type { SessionPolicy, UserService } from '../../src/services/panel/users.js';
import { panelServices } from '../../src/services/panel/panel-services.js';
import { defaultNow } from './harness.js';
import type { Store } from '../../src/ports/store.js';
import type { NewMessage, NewSend } from '../../src/ports/messages.js';
import { CountDeriver } from '../../src/jobs/count-deriver.js';
import { createLogger } from '../../src/main.js';
import { waitFor } from './wait-for.js';
import { valueOf } from './results.js';

export interface PanelAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location: string | undefined;
}

export class PanelBrowser {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that had a form. */
  csrf: string | null = null;

  constructor(
    private readonly app: FastifyInstance,
    readonly ip = '127.0.0.1',
    readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(setCookie: string | string[] | undefined): void {
    for (const line of setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string | readonly string[]>,
    extra: Record<string, string> = {},
  ): Promise<PanelAnswer> {
    const payload =
      form === undefined
        ? undefined
        : new URLSearchParams(
            Object.entries(form).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : v.map((x) => [k, x]))),
          ).toString();
    const response = await this.app.inject({
      method,
      url,
      remoteAddress: this.ip,
      headers: {
        ...this.headers,
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...extra,
      },
      ...(payload !== undefined ? { payload } : {}),
    });
    const setCookie = response.headers['set-cookie'];
    this.keep(typeof setCookie === 'number' ? undefined : setCookie);
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token !== undefined) this.csrf = token;
    const location = response.headers.location;
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
      location: typeof location === 'string' ? location : undefined,
    };
  }

  get(url: string, extra: Record<string, string> = {}): Promise<PanelAnswer> {
    return this.request('GET', url, undefined, extra);
  }

  /** Posts a form with the current page's CSRF token (`csrf: null` leaves it out, a string replaces it). */
  post(
    url: string,
    form: Record<string, string | readonly string[]> = {},
    csrf: string | null | undefined = undefined,
  ): Promise<PanelAnswer> {
    const token = csrf === undefined ? this.csrf : csrf;
    return this.request('POST', url, token === null ? form : { _csrf: token, ...form });
  }

  /** Signs in through the form; asserts it worked. */
  async signIn(email: string, password: string): Promise<void> {
    await this.get('/panel/sign-in');
    const answer = await this.post('/panel/sign-in', { email, password });
    assert.equal(answer.status, 303, answer.body);
    await this.get('/panel/keys');
  }
}

export interface PanelHarness {
  app: FastifyInstance;
  runtime: AppContainer;
  clock: FixedClock;
  users: UserService;
  /** An account with 1000 credit and a panel user; the password is `password-<name>`. */
  account(name: string): Promise<{ accountId: number; userId: number; email: string; password: string }>;
  browser(ip?: string, headers?: Record<string, string>): PanelBrowser;
  /** Every route the panel registered, as `METHOD /panel/path` (a test can check it covers them all). */
  routes: string[];
  /**
   * Waits until the deriver (running beside the app, as in a worker's dispatch thread) has
   * added every queued sum to the panel's rollups: the pages' counts are then exact.
   */
  derived(): Promise<void>;
  close(): Promise<void>;
}

export async function createPanelHarness(
  location: StoreLocation = { dialect: 'sqlite', file: ':memory:' },
  policy: Partial<SessionPolicy> = {},
  trustedProxies: string[] = [],
): Promise<PanelHarness> {
  const clock = new FixedClock(defaultNow);
  const runtime = await openAppContainer(location, clock);
  const webhooks = webhookAdmin(runtime, {
    webhookAllowPrivate: true,
    webhookTimeoutMs: 2000,
    webhookRetryBaseMs: 60_000,
  });
  const services = panelServices({
    store: runtime.store,
    clock,
    sends: runtime.services.sends,
    webhooks: webhooks.admin,
    campaigns: runtime.services.campaigns,
    links: runtime.services.links,
    sessionPolicy: { ...defaultSessionPolicy, ...policy },
  });
  const users = services.sessions;
  const routes: string[] = [];
  const app = await buildApp({
    connections: defaultConnectionLimits,
    services: runtime.services,
    requestsPerSecond: 0,
    trustedProxies,
    surfaces: [
      {
        prefix: '/panel',
        plugin: async (panel) => {
          panel.addHook('onRoute', (route) => {
            for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
          });
          await panelPlugin(panel, { ...services, close: () => webhooks.close() });
        },
      },
    ],
  });
  // The deriver of the panel's rollups, as a worker's dispatch thread runs it (rounds on a short timer here).
  const deriver = new CountDeriver(runtime.store.derived, clock, createLogger('silent'), {
    everyMs: 10,
    gatherMs: 0,
    batch: 500,
  });
  deriver.start();
  return {
    app,
    runtime,
    clock,
    users,
    async derived() {
      await waitFor('the rollups derived', async () => (await runtime.store.derived.rollupsPending()) === 0);
    },
    async account(name) {
      const made = await valueOf(
        runtime.admin.createAccount({
          name,
          balanceMain: 1000,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      const email = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}@example.com`;
      const password = `password-${name}`;
      const user = await valueOf(users.create({ accountId: made.id, email, password }));
      return { accountId: made.id, userId: user.id, email, password };
    },
    browser: (ip, headers) => new PanelBrowser(app, ip, headers),
    routes,
    async close() {
      await app.close();
      await deriver.stop();
      await runtime.close();
    },
  };
}

/**
 * A send written straight to the store with its messages (as the expander would write a
 * bulk send's), for pages that show messages: a group send by default; `send` changes any
 * of its fields. Returns the ids given.
 */
export async function writeSend(
  store: Store,
  of: { accountId: number; keyId: number; at: number; messages: NewMessage[]; send?: Partial<NewSend> },
): Promise<{ sendId: number; messageIds: number[] }> {
  const [sendId = 0, ...messageIds] = await store.messages.allocateIds(of.messages.length + 1);
  const send: NewSend = {
    accountId: of.accountId,
    keyId: of.keyId,
    kind: 'group',
    sender: 'ACME',
    text: 'test',
    lang: 0,
    contentType: 0,
    scheduledAt: null,
    sandbox: false,
    totalNumbers: of.messages.length,
    invalidNumbers: 0,
    blockedNumbers: 0,
    smsCost: of.messages.reduce((n, m) => n + m.smsCount, 0),
    createdAt: of.at,
    priority: 1,
    pendingRecipients: null,
    ...of.send,
  };
  await store.messages.insertSends([{ id: sendId, send }]);
  const { accountId, keyId, sandbox, createdAt, priority } = send;
  await store.messages.insertMessagesOf([
    {
      send: { id: sendId, accountId, keyId, sandbox, createdAt, dueAt: createdAt, priority },
      ids: messageIds,
      messages: of.messages,
    },
  ]);
  return { sendId, messageIds };
}
