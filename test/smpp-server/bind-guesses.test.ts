/**
 * SMPP password guesses (issue 42, item 4), through SMPP to the server in this process, on
 * SQLite and PostgreSQL: failed binds are counted in the store per system_id and per peer
 * address; past a limit a bind is ESME_RBINDFAIL without its password evaluated (the right
 * password too) until the window ends; a burst of concurrent guesses gets at most the limit
 * evaluated; a failed bind closes its connection; correct binds, one after another or the
 * user's max binds at once, are never refused by the count; another address is not limited.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { harnessFor } from '../helpers/harness.js';
import { connectEsme } from '../helpers/esme.js';
import type { Esme } from '../helpers/esme.js';
import { waitFor } from '../helpers/wait-for.js';
import type { SmppServer } from '../../src/smpp-server/smpp-server.js';
import { smppServerOn } from '../helpers/smpp-server.js';
import { defaultBindGuessPolicy } from '../../src/services/smpp/bind-guesses.js';
import { valueOf } from '../helpers/results.js';

const ESME_ROK = 0x00;
const ESME_RBINDFAIL = 0x0d;
const ESME_RINVPASWD = 0x0e;
const ESME_RINVSYSID = 0x0f;
const minute = 60_000;

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP server: password guesses (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    const servers: SmppServer[] = [];
    const esmes: Esme[] = [];
    let port = 0;
    /** A server whose address limit is 6 (its system_id limit out of the way). */
    let narrowPort = 0;

    const serverWith = async (bindGuesses = defaultBindGuessPolicy): Promise<number> => {
      const server = smppServerOn(h.runtime, h.clock, { bindGuesses });
      servers.push(server);
      return server.listen({ port: 0, host: '127.0.0.1' });
    };

    before(async () => {
      const p = await h.provision();
      for (const systemId of ['acme', 'steady', 'busy', 'other'])
        await valueOf(h.runtime.smppUsers.create({ keyId: p.keyId, systemId, password: 'pw123456' }));
      port = await serverWith();
      narrowPort = await serverWith({ perSystemId: 100, perAddress: 6, windowMs: 15 * minute });
    });
    after(async () => {
      for (const esme of esmes) await esme.close();
      for (const server of servers) await server.close();
    });

    /** One bind on a new connection; the connection is kept for a bound one. */
    const bindOnce = async (
      systemId: string,
      password: string,
      options: { port?: number; localAddress?: string } = {},
    ): Promise<number> => {
      const esme = await connectEsme(options.port ?? port, options);
      esmes.push(esme);
      return esme.bind('bind_transceiver', systemId, password);
    };

    it('refuses the right password unchecked after the limit of wrong ones, until the window ends', async () => {
      // The reproduction: 60 wrong passwords, then the right one.
      const statuses: number[] = [];
      for (let i = 1; i <= 60; i++) statuses.push(await bindOnce('acme', `bad${i}`));
      // 10 failures and the user's 4 max binds: 14 evaluated, the others refused unchecked.
      assert.deepEqual(statuses.slice(0, 14), Array<number>(14).fill(ESME_RINVPASWD));
      assert.deepEqual(statuses.slice(14), Array<number>(46).fill(ESME_RBINDFAIL));
      assert.equal(await bindOnce('acme', 'pw123456'), ESME_RBINDFAIL, 'the right password bound past the limit');
      h.clock.advance(15 * minute);
      assert.equal(await bindOnce('acme', 'pw123456'), ESME_ROK);
    });

    it('evaluates at most the limit of a burst of concurrent wrong binds', async () => {
      h.clock.advance(15 * minute);
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => bindOnce('acme', `burst${i}`)));
      assert.equal(statuses.filter((s) => s === ESME_RINVPASWD).length, 14);
      assert.equal(statuses.filter((s) => s === ESME_RBINDFAIL).length, 26);
    });

    it('closes the connection after a failed bind', async () => {
      const esme = await connectEsme(port);
      esmes.push(esme);
      assert.equal(await esme.bind('bind_transceiver', 'nobody', 'x'), ESME_RINVSYSID);
      await waitFor('the connection closed by the server', () => esme.closed());
    });

    it('never refuses correct binds: many one after another, and the max binds at once after failures', async () => {
      h.clock.advance(15 * minute);
      for (let i = 0; i < 30; i++) {
        const esme = await connectEsme(port);
        assert.equal(await esme.bind('bind_transceiver', 'steady', 'pw123456'), ESME_ROK, `bind ${i + 1}`);
        await esme.close();
      }
      for (let i = 0; i < 9; i++) assert.equal(await bindOnce('busy', `typo${i}`), ESME_RINVPASWD);
      const together = await Promise.all(Array.from({ length: 4 }, () => bindOnce('busy', 'pw123456')));
      assert.deepEqual(together, [ESME_ROK, ESME_ROK, ESME_ROK, ESME_ROK]);
    });

    it('limits one address guessing across system_ids, not another address', async () => {
      h.clock.advance(15 * minute);
      for (let i = 0; i < 6; i++) assert.equal(await bindOnce(`spray${i}`, 'x', { port: narrowPort }), ESME_RINVSYSID);
      assert.equal(await bindOnce('other', 'pw123456', { port: narrowPort }), ESME_RBINDFAIL);
      assert.equal(await bindOnce('other', 'pw123456', { port: narrowPort, localAddress: '127.0.0.2' }), ESME_ROK);
    });
  });
}
