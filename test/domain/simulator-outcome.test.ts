import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simulatedOutcome } from '../../src/domain/simulator-outcome.js';
import type { SimulatedOutcome } from '../../src/domain/simulator-outcome.js';

/** interfaces.md's table, and the refusal of a destination that is no number. */
describe('simulatedOutcome', () => {
  const cases: Array<[string, SimulatedOutcome]> = [
    ['905321230000', 'failed'],
    ['905321230001', 'expired'],
    ['905321230002', 'no-report'],
    ['905321231234', 'delivered'],
    ['12345', 'delivered'], // a wrong number is sent like any other
    ['0000', 'failed'],
    ['helloworld', 'refused'],
    ['90532abc0000', 'refused'],
    ['1234567890120000', 'refused'], // 16 digits
    ['', 'refused'],
  ];
  for (const [n, expected] of cases) {
    it(`${JSON.stringify(n)} -> ${expected}`, () => assert.equal(simulatedOutcome(n), expected));
  }
});
