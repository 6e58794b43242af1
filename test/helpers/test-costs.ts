/**
 * Preloaded into every test process by scripts/run-tests.mjs (`NODE_OPTIONS=--import`, so the
 * `serve` and `admin` processes a test starts inherit it): password hashes cost scrypt N = 2^10
 * instead of 2^15, about a thirtieth of the CPU. A hash keeps its parameters, so its checks
 * cost the same as its making. Nothing a test proves rests on the cost (the sign-in and bind
 * limits are counted in the store, before the hash); that production hashes keep N = 2^15 is
 * proven by test/services/passwords.test.ts in a process without this preload. A file run
 * alone with `node --test` pays the real cost.
 */
import { useScryptCostForTestsOnly } from '../../src/services/passwords.js';

useScryptCostForTestsOnly(2 ** 10);
