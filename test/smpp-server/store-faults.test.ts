/**
 * A submit_sm that meets a store fault (docs/decisions.md, "A silent PostgreSQL answered in
 * time"), through SMPP to the server in this process: when nothing of it can have been
 * committed (the store unreachable, silent, or past its statement bound) the answer is
 * ESME_RTHROTTLED, which clients retry later; a commit whose outcome is unknown, or any
 * other failure, stays ESME_RSYSERR, never a retry that could send twice.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { harnessFor } from '../helpers/harness.js';
import { connectEsme } from '../helpers/esme.js';
import type { Esme } from '../helpers/esme.js';
import type { SmppServer } from '../../src/smpp-server/smpp-server.js';
import { smppServerOn } from '../helpers/smpp-server.js';
import { StoreOutcomeUnknown, StoreUnavailable } from '../../src/util/store-faults.js';
import { valueOf } from '../helpers/results.js';

const ESME_ROK = 0x00;
const ESME_RSYSERR = 0x08;
const ESME_RTHROTTLED = 0x58;

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP server: a submit_sm that meets a store fault (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    let server: SmppServer;
    let esme: Esme;
    let fault: Error | null = null;

    before(async () => {
      const p = await h.provision();
      await valueOf(h.runtime.smppUsers.create({ keyId: p.keyId, systemId: 'faulty', password: 'pw' }));
      const sends = h.runtime.services.sends;
      const accept = sends.accept.bind(sends);
      sends.accept = (...args: Parameters<typeof accept>) => (fault !== null ? Promise.reject(fault) : accept(...args));
      server = smppServerOn(h.runtime, h.clock);
      const port = await server.listen({ port: 0, host: '127.0.0.1' });
      esme = await connectEsme(port);
      assert.equal(await esme.bind('bind_transceiver', 'faulty', 'pw'), ESME_ROK);
    });
    after(async () => {
      await esme.close();
      await server.close();
    });

    const cases: [string, () => Error, number][] = [
      [
        'the store unreachable or silent, nothing committed: ESME_RTHROTTLED',
        () => new StoreUnavailable('gone'),
        ESME_RTHROTTLED,
      ],
      [
        'a statement past its bound (PostgreSQL 57014): ESME_RTHROTTLED',
        () => Object.assign(new Error('canceling statement'), { code: '57014' }),
        ESME_RTHROTTLED,
      ],
      ['a commit whose outcome is unknown: ESME_RSYSERR', () => new StoreOutcomeUnknown('no answer'), ESME_RSYSERR],
      ['another failure (a bug): ESME_RSYSERR', () => new Error('a bug'), ESME_RSYSERR],
    ];
    for (const [name, make, status] of cases) {
      it(name, async () => {
        fault = make();
        try {
          assert.equal((await esme.submit('905321112233', 'hello')).command_status, status);
        } finally {
          fault = null;
        }
        // The session goes on, and the next submit is accepted.
        assert.equal((await esme.submit('905321112233', 'hello')).command_status, ESME_ROK);
      });
    }
  });
}
