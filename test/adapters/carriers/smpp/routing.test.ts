import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chooseRoute, preferredRoute } from '../../../../src/adapters/carriers/smpp/routing.js';

const connections = [
  { name: 'turkcell', prefixes: ['90532', '90533'], isBound: true },
  { name: 'vodafone', prefixes: ['9054', '90542'], isBound: true },
  { name: 'intl', isBound: true },
];

describe('SMPP routing', () => {
  it('takes the longest matching prefix, else the default route', () => {
    assert.equal(preferredRoute('905321234567', connections, 'intl'), 'turkcell');
    assert.equal(preferredRoute('905421234567', connections, 'intl'), 'vodafone');
    assert.equal(preferredRoute('905431234567', connections, 'intl'), 'vodafone');
    assert.equal(preferredRoute('491701234567', connections, 'intl'), 'intl');
  });

  it('fails over to the default route, then to any bound connection', () => {
    const down = connections.map((c) => (c.name === 'turkcell' ? { ...c, isBound: false } : c));
    assert.equal(chooseRoute('905321234567', down, 'intl')?.name, 'intl');
    const onlyVodafone = connections.map((c) => ({ ...c, isBound: c.name === 'vodafone' }));
    assert.equal(chooseRoute('905321234567', onlyVodafone, 'intl')?.name, 'vodafone');
  });

  it('answers undefined when nothing is bound', () => {
    assert.equal(
      chooseRoute(
        '905321234567',
        connections.map((c) => ({ ...c, isBound: false })),
        'intl',
      ),
      undefined,
    );
  });
});
