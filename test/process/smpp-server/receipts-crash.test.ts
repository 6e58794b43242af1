/**
 * The measure of issue 43: a receipt owed to an SMPP customer is written in the transaction
 * that accepts its submit, so a `serve` killed with SIGKILL right after it answered a burst
 * of submit_sm asking for receipts loses none of them. Another process (the same one
 * restarted, or a second one of a PostgreSQL cluster that was running all along) sends
 * every one once the customer binds again.
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
import { stringField } from '../../../src/smpp/smpp-wire.js';

const ESME_ROK = 0x00;
/** Under the server's 100 submit_sm in processing per session. */
const burst = 90;

function crashSuite(dialect: 'sqlite' | 'postgres', processes: 1 | 2): void {
  const skip =
    dialect === 'postgres' && postgresUrl() === ''
      ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it'
      : false;
  const schema = dialect === 'postgres' ? schemaForSuite() : null;
  const dir = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'haberci-receipts-crash-')) : '';
  const store = (): string[] => (schema ? ['--database', schema.url] : ['--data', dir]);
  const servers: ServerProcess[] = [];
  const esmes: Esme[] = [];
  after(async () => {
    for (const e of esmes) await e.close().catch(() => undefined);
    for (const s of servers) s.child.kill('SIGKILL');
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });
  // A short lease: what the killed process held (messages, receipts sent and not answered) is taken again soon.
  const serve = async (): Promise<ServerProcess> => {
    const server = await startServer([
      ...store(),
      '--demo',
      'false',
      '--smpp-server-port',
      '0',
      '--lease-ms',
      '1500',
      '--sim-delay-ms',
      '20',
    ]);
    servers.push(server);
    return server;
  };
  const bind = async (server: ServerProcess): Promise<Esme> => {
    const esme = await connectEsme(smppPortOf(server.output()), { enquireMs: 300 });
    esmes.push(esme);
    assert.equal(await esme.bind('bind_transceiver', 'crash', 'pw123'), ESME_ROK);
    return esme;
  };
  const receipted = (esme: Esme): string[] => esme.delivered.map((p) => stringField(p, 'receipted_message_id') ?? '');

  const label = processes === 2 ? `${dialect}, two processes` : dialect;
  describe(`SMPP receipts survive a SIGKILL after the answers (${label})`, { skip }, () => {
    it(`sends every receipt of ${burst} answered submit_sm after a SIGKILL, once the customer binds again`, async () => {
      const first = await serve();
      const other = processes === 2 ? await serve() : null;
      const sender = await provisionSender(store(), 'Crash', 10_000);
      await admin([
        'smpp-user',
        'create',
        '--key',
        sender.keyId,
        '--system-id',
        'crash',
        '--password',
        'pw123',
        '--max-submits-per-second',
        '0',
        ...store(),
      ]);
      const esme = await bind(first);
      // Numbers ending 1000 to 1089: the simulator reports every one (0002 would be its number with no report).
      const answers = await Promise.all(
        Array.from({ length: burst }, (_, i) => esme.submit(`90532${String(1000 + i).padStart(7, '0')}`, `crash ${i}`)),
      );
      // Killed at once after the last answer: no time for anything written after an answer.
      first.child.kill('SIGKILL');
      await first.exited;
      esme.session.socket.destroy();
      assert.deepEqual(
        answers.map((a) => a.command_status),
        answers.map(() => ESME_ROK),
      );
      const ids = answers.map((a) => stringField(a, 'message_id') ?? '');
      assert.equal(new Set(ids).size, burst);

      const next = other ?? (await serve());
      const again = await bind(next);
      // Every receipt: those the killed process sent and had answered before it died, and the rest now.
      const missing = await waitFor(
        'every receipt after the restart',
        () => {
          const got = new Set([...receipted(esme), ...receipted(again)]);
          const left = ids.filter((id) => !got.has(id));
          return left.length === 0 ? left : false;
        },
        { timeoutMs: 30_000 },
      );
      assert.deepEqual(missing, []);
      // Not one receipt for a message it did not submit.
      for (const id of receipted(again)) assert.ok(ids.includes(id), `receipt for an unknown id ${id}`);
    });
  });
}

crashSuite('sqlite', 1);
crashSuite('postgres', 1);
crashSuite('postgres', 2);
