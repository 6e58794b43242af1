import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startServer } from '../helpers/server-process.js';
import { haberci } from '../helpers/admin-cli.js';
import type { ServerProcess } from '../helpers/server-process.js';

/** Signs in over plain HTTP as a browser would; returns the status and where it was sent. */
async function signIn(
  base: string,
  email: string,
  password: string,
): Promise<{ status: number; location: string | null }> {
  const form = await fetch(`${base}/panel/sign-in`);
  const pre = /haberci_pre=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const answer = await fetch(`${base}/panel/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `haberci_pre=${pre}` },
    body: new URLSearchParams({ _csrf: token, email, password }).toString(),
  });
  return { status: answer.status, location: answer.headers.get('location') };
}

describe('haberci serve and the panel', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  const dir = (): string => {
    const made = mkdtempSync(join(tmpdir(), 'haberci-panel-serve-'));
    dirs.push(made);
    return made;
  };
  after(async () => {
    for (const s of servers) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('prints the panel URL and a demo login on first start, only then, and the login works', async () => {
    const data = dir();
    const first = await startServer(['--data', data]);
    servers.push(first);
    const line = first
      .output()
      .split('\n')
      .filter((l) => l.includes('demo_panel_password'))
      .map((l) => JSON.parse(l) as Record<string, string>);
    assert.equal(line.length, 1, first.output());
    assert.equal(line[0]?.panel_url, `${first.url}/panel/`);
    assert.equal(line[0]?.demo_panel_email, 'demo@haberci.local');
    const password = line[0]?.demo_panel_password ?? '';
    assert.ok(password.length >= 12);
    assert.deepEqual(await signIn(first.url, 'demo@haberci.local', password), { status: 303, location: '/panel/' });
    first.child.kill('SIGTERM');
    await first.exited;
    const again = await startServer(['--data', data]);
    servers.push(again);
    assert.equal(again.output().includes(password), false);
    assert.equal(again.output().includes('demo_panel_password'), false);
  });

  it('serves no panel with --panel false: /panel/ is the API\u2019s not-found answer', async () => {
    // Without job threads: only the panel's pages are asked, and the threads cost a start seconds of CPU.
    const off = await startServer(['--data', dir(), '--demo', 'false', '--worker', 'false', '--panel', 'false']);
    servers.push(off);
    const answer = await fetch(`${off.url}/panel/`);
    assert.equal(answer.status, 404);
    assert.match(answer.headers.get('content-type') ?? '', /application\/json/);
    const on = await startServer(['--data', dir(), '--demo', 'false', '--worker', 'false'], { HABERCI_PANEL: 'true' });
    servers.push(on);
    const page = await fetch(`${on.url}/panel/sign-in`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<button type="submit">Sign in<\/button>/);
  });

  it('refuses a session length of zero, naming the option', async () => {
    const run = await haberci(['serve', '--port', '0', '--data', dir(), '--panel-idle-minutes', '0']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /--panel-idle-minutes/);
  });
});
