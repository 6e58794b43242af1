/**
 * The probes (src/http/health.ts) as a root surface of the server (src/http/app.ts): /healthz
 * and /readyz answer without a key, readiness names what failed (the store, its migrations,
 * the carrier's connections), the drain answers 503, and root surfaces own their paths only.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { buildApp, stopApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import type { Surface } from '../../src/http/app.js';
import { healthSurface } from '../../src/http/health.js';
import { buildOpsApp } from '../../src/http/ops-app.js';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { Readiness } from '../../src/services/readiness.js';
import type { ReadinessSources } from '../../src/services/readiness.js';
import type { CarrierLinks } from '../../src/ports/carrier.js';
import { createHarness } from '../helpers/harness.js';

async function withApp(
  sources: (container: AppContainer) => Partial<ReadinessSources>,
  run: (
    get: (url: string) => Promise<{ status: number; body: Record<string, unknown> }>,
    container: AppContainer,
  ) => Promise<void>,
): Promise<void> {
  const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
  const readiness = new Readiness({ store: container.store, ...sources(container) });
  const app = await buildApp({
    connections: defaultConnectionLimits,
    services: container.services,
    requestsPerSecond: 0,
    surfaces: [healthSurface(readiness)],
  });
  try {
    await run(async (url) => {
      const answer = await app.inject({ method: 'GET', url });
      return { status: answer.statusCode, body: answer.json<Record<string, unknown>>() };
    }, container);
  } finally {
    await app.close();
    await container.close().catch(() => undefined);
  }
}

describe('GET /healthz and /readyz', () => {
  it('answer without a key: alive, and ready on a fresh store', async () => {
    await withApp(
      () => ({}),
      async (get) => {
        assert.deepEqual(await get('/healthz'), { status: 200, body: { status: 'ok' } });
        assert.deepEqual(await get('/readyz'), {
          status: 200,
          body: { status: 'ready', checks: { store: { ok: true }, migrations: { ok: true } } },
        });
      },
    );
  });

  it('/readyz is 503 naming the store when it does not answer in time, or at all', async () => {
    await withApp(
      () => ({ store: { health: () => new Promise(() => undefined) }, storeTimeoutMs: 50 }),
      async (get) => {
        const answer = await get('/readyz');
        assert.equal(answer.status, 503);
        assert.equal(answer.body.status, 'unready');
        const checks = answer.body.checks as Record<string, { ok: boolean; detail?: string }>;
        assert.equal(checks.store?.ok, false);
        assert.match(String(checks.store?.detail), /no answer within 50 ms/);
        assert.deepEqual(await get('/healthz'), { status: 200, body: { status: 'ok' } });
      },
    );
    await withApp(
      () => ({}),
      async (get, container) => {
        await container.close();
        const answer = await get('/readyz');
        assert.equal(answer.status, 503);
        assert.equal((answer.body.checks as Record<string, { ok: boolean }>).store?.ok, false);
      },
    );
  });

  it('/readyz is 503 when the store lacks a migration of this build', async () => {
    await withApp(
      () => ({ store: { health: async () => ({ migrated: false }) } }),
      async (get) => {
        const answer = await get('/readyz');
        assert.equal(answer.status, 503);
        assert.deepEqual((answer.body.checks as Record<string, unknown>).migrations, {
          ok: false,
          detail: 'the store lacks migrations of this build',
        });
      },
    );
  });

  it('/readyz checks the carrier only when it holds connections, and needs one bound', async () => {
    let links: CarrierLinks | null = null;
    await withApp(
      () => ({ carrierLinks: () => links }),
      async (get) => {
        assert.equal((await get('/readyz')).status, 200, 'the simulator: no carrier check');
        links = { bound: 0, total: 2 };
        const down = await get('/readyz');
        assert.equal(down.status, 503);
        assert.deepEqual((down.body.checks as Record<string, unknown>).carrier, {
          ok: false,
          detail: '0 of 2 carrier connections bound',
        });
        links = { bound: 1, total: 2 };
        const up = await get('/readyz');
        assert.equal(up.status, 200);
        assert.deepEqual((up.body.checks as Record<string, unknown>).carrier, {
          ok: true,
          detail: '1 of 2 carrier connections bound',
        });
      },
    );
  });

  it('leave every other path to the API: a POST to /healthz and an unknown path keep the API answers', async () => {
    const h = await createHarness(undefined, {
      surfaces: [healthSurface(new Readiness({ store: { health: async () => ({ migrated: true }) } }))],
    });
    try {
      const other = await h.post('/healthy', {});
      assert.equal(other.status, 404);
      assert.equal(other.body.result_code, 'TS-404');
      const posted = await h.post('/healthz', {});
      assert.equal(posted.status, 404);
      assert.equal(posted.body.result_code, 'TS-404');
      const balance = await h.post('/balance/', {});
      assert.equal(balance.body.result_code, 'TS-1050', 'the API still answers its paths');
    } finally {
      await h.close();
    }
  });

  it('answer 503 during the drain', async () => {
    const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: container.services,
      requestsPerSecond: 0,
      surfaces: [healthSurface(new Readiness({ store: container.store }))],
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const agent = new Agent({ connections: 2, keepAliveTimeout: 60_000 });
    try {
      // Two keep-alive connections, open before the stop begins: each late request closes its own.
      const before = await Promise.all([
        request(`${base}/readyz`, { dispatcher: agent }),
        request(`${base}/healthz`, { dispatcher: agent }),
      ]);
      assert.deepEqual(
        before.map((b) => b.statusCode),
        [200, 200],
      );
      await Promise.all(before.map((b) => b.body.text()));
      const stopped = stopApp(app, 5000);
      const late = await Promise.all([
        request(`${base}/readyz`, { dispatcher: agent }),
        request(`${base}/healthz`, { dispatcher: agent }),
      ]);
      for (const answer of late) {
        assert.equal(answer.statusCode, 503);
        assert.deepEqual(await answer.body.json(), { status: 'stopping' });
      }
      await stopped;
    } finally {
      await agent.close();
      await container.close();
    }
  });
});

describe('root surfaces', () => {
  const plugin: Surface['plugin'] = async (scope) => {
    scope.get('/ping', async () => ({ pong: true }));
  };

  it('refuse a path of the API, one that differs from it by a slash, or one under a prefix', async () => {
    const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    try {
      for (const path of ['/sms/send', '/balance', '/docs', '/panel/ping'] as const) {
        const surfaces: Surface[] = [
          { paths: [path], plugin },
          { prefix: '/panel', plugin: async () => undefined },
        ];
        await assert.rejects(
          buildApp({ connections: defaultConnectionLimits, services: container.services, surfaces }),
          /surface path/,
          path,
        );
      }
    } finally {
      await container.close();
    }
  });

  it('refuse a route outside the paths they claim', async () => {
    const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    try {
      await assert.rejects(
        buildApp({
          connections: defaultConnectionLimits,
          services: container.services,
          surfaces: [{ paths: ['/pong'], plugin }],
        }),
        /adds a route at \/ping/,
      );
      const app = await buildApp({
        connections: defaultConnectionLimits,
        services: container.services,
        surfaces: [{ paths: ['/ping'], plugin }],
      });
      assert.deepEqual((await app.inject({ method: 'GET', url: '/ping' })).json(), { pong: true });
      await app.close();
    } finally {
      await container.close();
    }
  });
});

describe('the operations listener app', () => {
  it('answers /metrics always, and its probes 503 once the process stops', async () => {
    let stopping = false;
    const app = await buildOpsApp({
      readiness: new Readiness({ store: { health: async () => ({ migrated: true }) } }),
      exposition: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', text: 'up 1\n' }),
      stopping: () => stopping,
    });
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      stopping = true;
      for (const url of ['/readyz', '/healthz']) {
        const answer = await app.inject({ method: 'GET', url });
        assert.equal(answer.statusCode, 503, url);
        assert.deepEqual(answer.json(), { status: 'stopping' });
      }
      const metrics = await app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(metrics.statusCode, 200);
      assert.equal(metrics.body, 'up 1\n');
    } finally {
      await app.close();
    }
  });
});
