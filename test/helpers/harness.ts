import { shortLinkPath } from '../../src/domain/short-links.js';
import { shortLinkSurface } from '../../src/http/short-link-surface.js';
import { after, before } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TestDialect } from './dialects.js';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import type { AppOptions } from '../../src/http/app.js';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import { FixedClock, systemClock } from '../../src/ports/clock.js';
import type { Clock } from '../../src/ports/clock.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { checkAgainstContract } from './contract-check.js';
import type { AccountInput } from '../../src/ports/accounts.js';
import type { KeySettings } from '../../src/ports/keys.js';
import { valueOf } from './results.js';

/** Marks requests made by post(), which checks their answers itself. */
const checkedHeader = 'x-test-contract-checked';

/** 2026-03-15 12:00:00 in Istanbul (UTC+3). */
export const defaultNow = Date.UTC(2026, 2, 15, 9, 0, 0);

export interface Harness {
  app: FastifyInstance;
  runtime: AppContainer;
  clock: FixedClock;
  post(path: string, body: unknown, options?: PostOptions): Promise<Answer>;
  provision(options?: ProvisionOptions): Promise<Provisioned>;
  close(): Promise<void>;
}

export interface PostOptions {
  ip?: string;
  contentType?: string;
  /** Send this exact payload instead of JSON-encoding the body. */
  raw?: string;
  method?: 'POST' | 'GET' | 'PUT' | 'DELETE' | 'PATCH';
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: LightMyRequestResponse['headers'];
  raw: string;
}

export interface ProvisionOptions {
  account?: Partial<AccountInput>;
  key?: Partial<KeySettings>;
  senderIds?: { title: string; status?: 'approved' | 'pending' | 'rejected' }[];
}

export interface Provisioned {
  accountId: number;
  keyId: number;
  apiKey: string;
}

export async function createHarness(
  location: StoreLocation = { dialect: 'sqlite', file: ':memory:' },
  appOptions: Partial<AppOptions> = {},
  shortLinkBase?: string,
): Promise<Harness> {
  const clock = new FixedClock(defaultNow);
  return { ...(await harnessOn(location, clock, appOptions, shortLinkBase)), clock };
}

/** A harness on the system clock, for tests that run the dispatcher's own loop in real time. */
export type LiveHarness = Omit<Harness, 'clock'>;

export function createLiveHarness(
  location: StoreLocation = { dialect: 'sqlite', file: ':memory:' },
  appOptions: Partial<AppOptions> = {},
): Promise<LiveHarness> {
  return harnessOn(location, systemClock, appOptions);
}

async function harnessOn(
  location: StoreLocation,
  clock: Clock,
  appOptions: Partial<AppOptions>,
  shortLinkBase?: string,
): Promise<LiveHarness> {
  const runtime = await openAppContainer(location, clock, { shortLinkBase });
  // With a short link base, its redirects are served as `serve` serves them.
  const path = shortLinkBase === undefined ? null : shortLinkPath(shortLinkBase);
  const links = path !== null && 'path' in path ? [shortLinkSurface(path.path, runtime.services.links)] : [];
  const app = await buildApp({
    connections: defaultConnectionLimits,
    services: runtime.services,
    requestsPerSecond: 0,
    ...appOptions,
    surfaces: [...(appOptions.surfaces ?? []), ...links],
  });
  // Answers that do not come through post() (tests that inject or listen themselves) are
  // checked against the contract here; what fails is reported when the harness closes.
  const violations: Error[] = [];
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.headers[checkedHeader] === undefined && typeof payload === 'string') {
      try {
        checkAgainstContract(request.method, request.url.split('?')[0] ?? '', reply.statusCode, payload);
      } catch (error) {
        violations.push(error as Error);
      }
    }
    return payload;
  });
  let counter = 0;
  return {
    app,
    runtime,
    async post(path, body, options = {}) {
      const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
      const response = await app.inject({
        method: options.method ?? 'POST',
        url: path,
        remoteAddress: options.ip ?? '127.0.0.1',
        headers: {
          ...(payload !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}),
          ...(options.headers ?? {}),
          [checkedHeader]: '1',
        },
        ...(payload !== undefined ? { payload } : {}),
      });
      checkAgainstContract(options.method ?? 'POST', path, response.statusCode, response.body);
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(response.body) as Record<string, unknown>;
      } catch {
        parsed = {};
      }
      return { status: response.statusCode, body: parsed, headers: response.headers, raw: response.body };
    },
    async provision(options = {}) {
      counter += 1;
      const account = await valueOf(
        runtime.admin.createAccount({
          name: `Account ${counter}`,
          balanceMain: 1000,
          balanceInternational: 100,
          perMinuteLimit: 0,
          otpBrand: 'Acme',
          ipAllow: [],
          globalSending: false,
          ...options.account,
        }),
      );
      // Through the store: fixtures may hold titles `sender-id add` refuses (Turkish letters,
      // surrounding spaces), as a store written before those checks may.
      for (const s of options.senderIds ?? [{ title: 'ACME' }])
        await runtime.store.senderIds.addSenderId(account.id, s.title, s.status ?? 'approved', clock.now());
      const key = await valueOf(runtime.admin.createKey(account.id, { ...defaultKeySettings, ...options.key }));
      return { accountId: account.id, keyId: key.id, apiKey: key.api_key };
    },
    async close() {
      await app.close();
      await runtime.close();
      if (violations.length > 0)
        throw new Error(
          `${violations.length} answer(s) did not match the contract; the first: ${violations[0]?.message ?? ''}`,
        );
    },
  };
}

/**
 * A harness for one describe() on one dialect: created before its tests, closed (and the
 * dialect's schema dropped) after them. The returned object reads the live harness.
 */
export function harnessFor(
  dialect: TestDialect,
  appOptions: Partial<AppOptions> = {},
  shortLinkBase?: string,
): Harness {
  let current: Harness | null = null;
  before(async () => {
    current = await createHarness(await dialect.location(), appOptions, shortLinkBase);
  });
  after(async () => {
    try {
      await current?.close();
    } finally {
      await dialect.cleanup();
    }
  });
  const live = (): Harness => {
    if (!current) throw new Error('the harness is used outside the suite that made it');
    return current;
  };
  return {
    get app() {
      return live().app;
    },
    get runtime() {
      return live().runtime;
    },
    get clock() {
      return live().clock;
    },
    post: (path, body, options) => live().post(path, body, options),
    provision: (options) => live().provision(options),
    close: () => live().close(),
  };
}
