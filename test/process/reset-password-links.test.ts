/**
 * `haberci admin user reset-password` ends every earlier set-password link of the user
 * (issue 30, item 7): links printed by `user create` and by an earlier reset answer 410 on
 * the running server, and only the newest link sets a password. On both stores.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adminOk } from '../helpers/cli.js';
import { startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';

const tokenOf = (link: unknown): string => new URL(String(link)).searchParams.get('token') ?? '';

/** Posts the set-password form as a browser does (its signed-out token in a cookie and a field). */
async function setPassword(base: string, token: string, password: string): Promise<number> {
  const page = await fetch(`${base}/panel/sign-in`);
  const pre = /haberci_pre=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const answer = await fetch(`${base}/panel/set-password`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `haberci_pre=${pre}` },
    body: new URLSearchParams({ _csrf: csrf, token, password }).toString(),
  });
  await answer.arrayBuffer();
  return answer.status;
}

async function linkStatus(base: string, token: string): Promise<number> {
  const answer = await fetch(`${base}/panel/set-password?token=${encodeURIComponent(token)}`);
  await answer.arrayBuffer();
  return answer.status;
}

function suite(name: string, storeArgs: () => readonly string[], skip: string | false): void {
  describe(`reset-password ends earlier set-password links (${name})`, { skip }, () => {
    let server: ServerProcess | null = null;
    before(async () => {
      await adminOk(['store', 'init', ...storeArgs()]);
      // Without job threads: nothing here is delivered, and they cost a start seconds of CPU.
      server = await startServer([...storeArgs(), '--demo', 'false', '--worker', 'false']);
    });
    after(async () => {
      server?.child.kill('SIGKILL');
      await server?.exited;
    });

    it('a link from user create and one from an earlier reset answer 410 and set nothing; the newest works once', async () => {
      const base = server?.url ?? '';
      const store = storeArgs();
      const account = await adminOk(['account', 'create', '--name', `Links ${name}`, ...store]);
      const created = await adminOk([
        'user',
        'create',
        '--account',
        String(account.id),
        '--email',
        `links-${name}@example.com`,
        ...store,
      ]);
      const fromCreate = tokenOf(created.set_password_link);
      assert.equal(await linkStatus(base, fromCreate), 200, 'the first link works before any reset');
      const firstReset = tokenOf(
        (await adminOk(['user', 'reset-password', '--id', String(created.id), ...store])).set_password_link,
      );
      const secondReset = tokenOf(
        (await adminOk(['user', 'reset-password', '--id', String(created.id), ...store])).set_password_link,
      );
      assert.equal(await linkStatus(base, fromCreate), 410);
      assert.equal(await linkStatus(base, firstReset), 410);
      assert.equal(await setPassword(base, fromCreate, 'from-the-create-link'), 410);
      assert.equal(await setPassword(base, firstReset, 'from-the-first-reset'), 410);
      const listed = (await adminOk(['user', 'list', '--account', String(account.id), ...store])).users as {
        password_set: boolean;
      }[];
      assert.equal(listed[0]?.password_set, false, 'no earlier link set a password');
      assert.equal(await linkStatus(base, secondReset), 200);
      assert.equal(await setPassword(base, secondReset, 'from-the-newest-link'), 303);
      assert.equal(await linkStatus(base, secondReset), 410, 'a link works once');
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'haberci-links-'));
after(() => rmSync(dir, { recursive: true, force: true }));
suite('sqlite', () => ['--data', dir], false);

const pgUrl = postgresUrl();
const schema = schemaForSuite();
suite('postgres', () => ['--database', schema.url], pgUrl === '' ? 'set HABERCI_TEST_DATABASE to run it' : false);
