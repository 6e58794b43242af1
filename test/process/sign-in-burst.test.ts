/**
 * The sign-in limit holds against a burst (issue 30, item 5): 40 wrong guesses sent at once
 * to two `serve` processes on one store get at most the per-user limit (5) evaluated, the
 * rest refused before the password is hashed, and the right password sent after them is
 * refused; 40 guesses at once under other emails from the same address get the rest of the
 * per-address limit (20) evaluated and no more. On SQLite (one data folder, two processes)
 * and PostgreSQL.
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

/** A browser's signed-out form token on one server: its cookie and field, reused for every post. */
async function formToken(base: string): Promise<{ pre: string; csrf: string }> {
  const page = await fetch(`${base}/panel/sign-in`);
  const pre = /haberci_pre=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return { pre, csrf };
}

async function signIn(base: string, token: { pre: string; csrf: string }, email: string, password: string) {
  const answer = await fetch(`${base}/panel/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `haberci_pre=${token.pre}` },
    body: new URLSearchParams({ _csrf: token.csrf, email, password }).toString(),
  });
  await answer.arrayBuffer();
  return answer.status;
}

const tally = (statuses: number[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
};

function suite(name: string, storeArgs: () => readonly string[], skip: string | false): void {
  describe(`sign-in limits under concurrent guesses, two processes (${name})`, { skip }, () => {
    const servers: ServerProcess[] = [];
    before(async () => {
      await adminOk(['store', 'init', ...storeArgs()]);
      // The store is made: both start side by side, without job threads (nothing here is
      // delivered; two threads cost each start about two seconds of CPU).
      servers.push(
        ...(await Promise.all([0, 1].map(() => startServer([...storeArgs(), '--demo', 'false', '--worker', 'false'])))),
      );
    });
    after(async () => {
      for (const s of servers) {
        s.child.kill('SIGKILL');
        await s.exited;
      }
    });

    it('evaluates at most the per-user limit of 40 guesses at once, then refuses the right password', async () => {
      const store = storeArgs();
      const account = await adminOk(['account', 'create', '--name', `Burst ${name}`, ...store]);
      const make = async (email: string): Promise<void> => {
        await adminOk([
          'user',
          'create',
          '--account',
          String(account.id),
          '--email',
          email,
          '--password',
          'the-right-password',
          ...store,
        ]);
      };
      await make('burst@example.com');
      await make('other@example.com');
      const tokens = await Promise.all(servers.map((s) => formToken(s.url)));
      const at = (i: number) => ({ base: servers[i % 2]?.url ?? '', token: tokens[i % 2] ?? { pre: '', csrf: '' } });

      const guesses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => signIn(at(i).base, at(i).token, 'burst@example.com', `wrong-guess-${i}`)),
      );
      assert.deepEqual(tally(guesses), { 401: 5, 429: 35 }, 'exactly the limit evaluated, the rest refused unhashed');
      assert.equal(await signIn(at(0).base, at(0).token, 'burst@example.com', 'the-right-password'), 429);
      assert.equal(await signIn(at(1).base, at(1).token, 'burst@example.com', 'the-right-password'), 429);

      // The address has 5 failures: 15 more may be evaluated, whatever the emails.
      const spread = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          signIn(at(i).base, at(i).token, `nobody-${i}@example.com`, 'a-wrong-guess'),
        ),
      );
      assert.deepEqual(tally(spread), { 401: 15, 429: 25 });
      assert.equal(await signIn(at(1).base, at(1).token, 'other@example.com', 'the-right-password'), 429);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'haberci-burst-'));
after(() => rmSync(dir, { recursive: true, force: true }));
suite('sqlite', () => ['--data', dir], false);

const pgUrl = postgresUrl();
const schema = schemaForSuite();
suite('postgres', () => ['--database', schema.url], pgUrl === '' ? 'set HABERCI_TEST_DATABASE to run it' : false);
