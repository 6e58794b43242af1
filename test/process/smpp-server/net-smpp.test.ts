/**
 * Interoperability with an ESME we did not write (issue 35): Perl's Net::SMPP (Debian
 * libnet-smpp-perl; .ci/run installs it) binds to `haberci serve --smpp-server-port`,
 * submits with registered_delivery and gets its receipt, matched by receipted_message_id
 * and by the text's id:. Skipped, saying why, where the module is missing.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { admin, childEnv, serverForSuite } from '../../helpers/server-process.js';
import { smppPortOf } from '../../helpers/esme.js';

const run = promisify(execFile);
const script = resolve('test/fixtures/net-smpp-esme.pl');
const netSmppSkip: string | false =
  spawnSync('perl', ['-MNet::SMPP', '-e', '1']).status === 0
    ? false
    : 'Perl Net::SMPP is missing (apt-get install -y libnet-smpp-perl)';

interface Step {
  step: string;
  status?: number;
  message_id?: string;
  esm_class?: number;
  receipted_message_id?: string;
  text?: string;
}

async function perlEsme(args: string[]): Promise<Step[]> {
  const { stdout } = await run('perl', [script, ...args], { env: childEnv(), timeout: 40_000 });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Step);
}

describe('SMPP server with Perl Net::SMPP as the ESME', { skip: netSmppSkip }, () => {
  const suite = serverForSuite('NetSmpp', 100, ['--smpp-server-port', '0', '--sim-delay-ms', '50'], 60_000);

  it('binds, submits, gets the receipt matched by id, unbinds; a wrong password is refused', async () => {
    await admin([
      'smpp-user',
      'create',
      '--key',
      suite.sender.keyId,
      '--system-id',
      'perl',
      '--password',
      'camel',
      ...suite.store,
    ]);
    const port = String(smppPortOf(suite.server.output()));
    const steps = await perlEsme([port, 'perl', 'camel', 'ACME', '905321112233', 'Merhaba Perl']);
    const byStep = new Map(steps.map((s) => [s.step, s]));
    assert.equal(byStep.get('bind')?.status, 0, JSON.stringify(steps));
    const submit = byStep.get('submit');
    assert.equal(submit?.status, 0, JSON.stringify(steps));
    assert.match(submit?.message_id ?? '', /^\d+$/);
    const receipt = byStep.get('receipt');
    assert.equal(receipt?.esm_class, 4, JSON.stringify(steps));
    assert.equal(receipt?.receipted_message_id, submit?.message_id);
    assert.match(receipt?.text ?? '', new RegExp(`^id:${submit?.message_id} .*stat:DELIVRD err:000`));
    assert.equal(byStep.get('unbind')?.status, 0);

    const refused = await perlEsme([port, 'perl', 'wrong', 'ACME', '905321112233', 'x']);
    assert.deepEqual(refused, [{ step: 'bind', status: 0x0e }]);
  });

  it('sends a long text as three parts with a UDH, each answered before the next; the receipt asked on the first part matches its id', async () => {
    const port = String(smppPortOf(suite.server.output()));
    const text = 'Net::SMPP waits for every answer before it sends the next part. '.repeat(6);
    const steps = await perlEsme([port, 'perl', 'camel', 'ACME', '905321112299', text, '3']);
    const submits = steps.filter((s) => s.step === 'submit');
    assert.deepEqual(
      submits.map((s) => s.status),
      [0, 0, 0],
      JSON.stringify(steps),
    );
    for (const s of submits) assert.match(s.message_id ?? '', /^\d+$/);
    assert.equal(new Set(submits.map((s) => s.message_id)).size, 3);
    const receipt = steps.find((s) => s.step === 'receipt');
    assert.equal(receipt?.receipted_message_id, submits[0]?.message_id, JSON.stringify(steps));
    assert.match(receipt?.text ?? '', new RegExp(`^id:${submits[0]?.message_id} .*stat:DELIVRD`));
    assert.equal(steps.at(-1)?.step, 'unbind');
  });
});
