/**
 * The SMPP server's binds across processes: a user's --max-binds counts the binds of every
 * process on the store (two `serve` processes on one SQLite folder, and on one PostgreSQL
 * schema); an unbind gives the place back at once; a process killed with SIGKILL keeps its
 * binds only until their lease (--lease-ms) runs out, then another process takes them.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, provisionSender, startServer } from '../../helpers/server-process.js';
import type { ServerProcess } from '../../helpers/server-process.js';
import { connectEsme, smppPortOf } from '../../helpers/esme.js';
import type { Esme } from '../../helpers/esme.js';
import { postgresUrl, schemaForSuite } from '../../helpers/dialects.js';
import { waitFor } from '../../helpers/wait-for.js';

const ESME_ROK = 0x00;
const ESME_RBINDFAIL = 0x0d;
/** Long enough that the bind right after the kill still meets the dead process's lease (it runs out 6 to 9 s after the kill). */
const leaseMs = 9000;

function clusterSuite(dialect: 'sqlite' | 'postgres'): void {
  const skip =
    dialect === 'postgres' && postgresUrl() === ''
      ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it'
      : false;
  const dir = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'haberci-smpp-cluster-')) : '';
  const servers: ServerProcess[] = [];
  const esmes: Esme[] = [];
  // Before the schema's own after(): the processes are gone before their schema is dropped.
  after(async () => {
    for (const e of esmes) await e.close().catch(() => undefined);
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });
  const schema = dialect === 'postgres' ? schemaForSuite() : null;
  const store = (): string[] => (schema ? ['--database', schema.url] : ['--data', dir]);
  const serve = async (): Promise<ServerProcess> => {
    const server = await startServer([
      ...store(),
      '--demo',
      'false',
      '--smpp-server-port',
      '0',
      '--lease-ms',
      String(leaseMs),
      '--sim-delay-ms',
      '50',
    ]);
    servers.push(server);
    return server;
  };
  const bind = async (server: ServerProcess): Promise<{ esme: Esme; status: number }> => {
    const esme = await connectEsme(smppPortOf(server.output()), { enquireMs: 300 });
    esmes.push(esme);
    return { esme, status: await esme.bind('bind_transceiver', 'one', 'pw123') };
  };

  describe(`SMPP binds across processes (${dialect})`, { skip }, () => {
    it('counts a user’s --max-binds over every process, gives a place back at unbind, and takes a dead process’s place after its lease', async () => {
      const a = await serve();
      const b = await serve();
      const sender = await provisionSender(store(), 'Cluster', 100);
      await admin([
        'smpp-user',
        'create',
        '--key',
        sender.keyId,
        '--system-id',
        'one',
        '--password',
        'pw123',
        '--max-binds',
        '1',
        ...store(),
      ]);

      const first = await bind(a);
      assert.equal(first.status, ESME_ROK);
      // The one place is taken in process A: process B refuses, as A itself would.
      assert.equal((await bind(b)).status, ESME_RBINDFAIL);
      assert.equal((await bind(a)).status, ESME_RBINDFAIL);

      // An unbind gives the place back: B takes it.
      await first.esme.close();
      const onB = await waitFor('B to take the place A gave back', async () => {
        const attempt = await bind(b);
        if (attempt.status === ESME_ROK) return attempt;
        await attempt.esme.close();
        return null;
      });

      // B dies holding it: A refuses while B's lease runs, then takes the place.
      b.child.kill('SIGKILL');
      await b.exited;
      onB.esme.session.socket.destroy();
      assert.equal((await bind(a)).status, ESME_RBINDFAIL, 'the dead process’s bind counts until its lease runs out');
      const taken = await waitFor('A to take the place once B’s lease ran out', async () => {
        const attempt = await bind(a);
        if (attempt.status === ESME_ROK) return attempt;
        await attempt.esme.close();
        return null;
      });
      assert.equal(taken.status, ESME_ROK);
    });
  });
}

clusterSuite('sqlite');
clusterSuite('postgres');
