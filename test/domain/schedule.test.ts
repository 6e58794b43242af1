import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSchedule, scheduleRequested } from '../../src/domain/schedule.js';

/** 2026-01-31 23:59:30 in Istanbul (UTC+3): half a minute before local midnight and month end. */
const beforeMidnight = Date.UTC(2026, 0, 31, 20, 59, 30);
/** 2026-03-16 01:30 in Istanbul, while it is still 15 March in UTC. */
const afterMidnight = Date.UTC(2026, 2, 15, 22, 30, 0);

function codeOf(date: string | undefined, time: string | undefined, now = beforeMidnight): string {
  const r = parseSchedule({ date, time }, now);
  return r.ok ? 'ok' : r.code;
}

describe('parseSchedule: accepted instants', () => {
  const cases: Array<[string, string, number, number]> = [
    ['2026-02-01', '00:00', beforeMidnight, Date.UTC(2026, 0, 31, 21, 0, 0)],
    ['2026-01-31', '23:59:31', beforeMidnight, Date.UTC(2026, 0, 31, 20, 59, 31)],
    ['2026-02-28', '12:30:15', beforeMidnight, Date.UTC(2026, 1, 28, 9, 30, 15)],
    ['2028-02-29', '08:00', beforeMidnight, Date.UTC(2028, 1, 29, 5, 0, 0)],
    ['2026-03-16', '02:00', afterMidnight, Date.UTC(2026, 2, 15, 23, 0, 0)],
    ['2027-01-01', '00:00:00', afterMidnight, Date.UTC(2026, 11, 31, 21, 0, 0)],
  ];
  for (const [date, time, now, expected] of cases) {
    it(`${date} ${time} -> ${new Date(expected).toISOString()}`, () => {
      assert.deepEqual(parseSchedule({ date, time }, now), { ok: true, value: expected });
    });
  }
});

describe('parseSchedule: refused', () => {
  const cases: Array<[string | undefined, string | undefined, string, number?]> = [
    [undefined, '10:00', 'TS-1070'],
    ['', '10:00', 'TS-1070'],
    ['2026/02/01', '10:00', 'TS-1070'],
    ['2026-2-1', '10:00', 'TS-1070'],
    ['26-02-01', '10:00', 'TS-1070'],
    [' 2026-02-01', '10:00', 'TS-1070'],
    ['2026-02-01T10:00', '10:00', 'TS-1070'],
    ['tomorrow', 'noon', 'TS-1070'], // the date is checked first
    ['2026-02-01', undefined, 'TS-1070'],
    ['2026-02-01', '', 'TS-1070'],
    ['2026-02-01', ' ', 'TS-1071'],
    ['2026-02-01', '9:30', 'TS-1071'],
    ['2026-02-01', '0930', 'TS-1071'],
    ['2026-02-01', '09:30:0', 'TS-1071'],
    ['2026-02-01', '09:30:00.000', 'TS-1071'],
    ['2026-02-01', ' 09:30', 'TS-1071'],
    ['2026-02-01', 'noon', 'TS-1071'],
    ['2026-02-30', '25:99', 'TS-1072'], // impossible date with an impossible time
    ['2026-02-01', '25:99', 'TS-1072'],
    ['2026-02-01', '24:00', 'TS-1072'],
    ['2026-02-01', '23:60', 'TS-1072'],
    ['2026-02-01', '12:00:60', 'TS-1072'],
    ['2026-02-30', '10:00', 'TS-1072'],
    ['2026-02-29', '10:00', 'TS-1072'], // 2026 is not a leap year
    ['2026-04-31', '10:00', 'TS-1072'],
    ['2026-13-01', '10:00', 'TS-1072'],
    ['2026-00-10', '10:00', 'TS-1072'],
    ['2026-01-31', '23:59', 'TS-1072'], // half a minute ago
    ['2026-01-31', '23:59:30', 'TS-1072'], // now exactly: not in the future
    ['2026-01-30', '23:59:59', 'TS-1072'],
    ['2026-03-16', '01:00', 'TS-1072', afterMidnight], // past in Istanbul though 16 March is ahead in UTC
    ['2026-03-15', '23:00', 'TS-1072', afterMidnight],
    ['2026-03-16', '01:30', 'TS-1072', afterMidnight],
  ];
  for (const [date, time, code, now] of cases) {
    it(`${JSON.stringify(date)} ${JSON.stringify(time)} -> ${code}`, () => {
      assert.equal(codeOf(date, time, now), code);
    });
  }
});

describe('scheduleRequested', () => {
  const cases: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ['', false],
    ['2026-02-01', true],
    ['x', true], // non-empty: scheduled, and then refused with TS-1070
  ];
  for (const [date, expected] of cases) {
    it(`${JSON.stringify(date)} -> ${expected}`, () => assert.equal(scheduleRequested(date), expected));
  }
});
