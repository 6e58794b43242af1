/**
 * SMPP 3.4 time fields (section 7.1.1; src/domain/smpp-time.ts): the absolute form with its
 * tenths and quarter-hour UTC offset, the relative form counted from the clock given, the
 * two-digit year's century, what is malformed, and a schedule's grace for a time just past.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSmppTime, smppSchedule } from '../../src/domain/smpp-time.js';
import { parseSchedule, scheduleFieldsAt } from '../../src/domain/schedule.js';

/** 2026-03-15 09:00:00 UTC (12:00 in Istanbul). */
const now = Date.UTC(2026, 2, 15, 9, 0, 0);
/** 2026-01-31 12:00 UTC: a month's last day. */
const monthEnd = Date.UTC(2026, 0, 31, 12, 0, 0);

function read(text: string, at = now): string {
  const t = parseSmppTime(text, at);
  return t.kind === 'at' ? new Date(t.at).toISOString() : t.kind;
}

describe('parseSmppTime: absolute YYMMDDhhmmsstnnp', () => {
  const cases: Array<[string, string]> = [
    ['270101100000000+', '2027-01-01T10:00:00.000Z'],
    ['270101100000004+', '2027-01-01T09:00:00.000Z'],
    ['270101100000004-', '2027-01-01T11:00:00.000Z'],
    // Istanbul, UTC+3: 12 quarter hours ahead.
    ['260315120000012+', '2026-03-15T09:00:00.000Z'],
    ['270101100000512+', '2027-01-01T07:00:00.500Z'],
    ['270101100000901+', '2027-01-01T09:45:00.900Z'],
    // India, UTC+5:30 (22 quarters); Newfoundland, UTC-3:30 (14); the largest offset, 48.
    ['270101100000022+', '2027-01-01T04:30:00.000Z'],
    ['270101100000014-', '2027-01-01T13:30:00.000Z'],
    ['270101120000048+', '2027-01-01T00:00:00.000Z'],
    ['280229235959900+', '2028-02-29T23:59:59.900Z'],
    // The century nearest the clock's year: 50 either side.
    ['750101000000000+', '2075-01-01T00:00:00.000Z'],
    ['770101000000000+', '1977-01-01T00:00:00.000Z'],
    ['990101000000000+', '1999-01-01T00:00:00.000Z'],
    ['000101000000000+', '2000-01-01T00:00:00.000Z'],
  ];
  for (const [text, expected] of cases) it(`${text} -> ${expected}`, () => assert.equal(read(text), expected));
});

describe('parseSmppTime: relative YYMMDDhhmmss000R', () => {
  const cases: Array<[string, number, string]> = [
    ['000000000000000R', now, '2026-03-15T09:00:00.000Z'],
    ['000000000050000R', now, '2026-03-15T09:00:50.000Z'],
    ['000000013000000R', now, '2026-03-15T10:30:00.000Z'],
    ['000000000130000R', now, '2026-03-15T09:01:30.000Z'],
    // A field past its calendar range counts as it is: 90 minutes, 48 hours.
    ['000000009000000R', now, '2026-03-15T10:30:00.000Z'],
    ['000000480000000R', now, '2026-03-17T09:00:00.000Z'],
    ['000001000000000R', now, '2026-03-16T09:00:00.000Z'],
    ['000100000000000R', now, '2026-04-15T09:00:00.000Z'],
    ['001200000000000R', now, '2027-03-15T09:00:00.000Z'],
    ['010000000000000R', now, '2027-03-15T09:00:00.000Z'],
    ['000102030405000R', now, '2026-04-17T12:04:05.000Z'],
    // Past the end of the month reached: its last day.
    ['000100000000000R', monthEnd, '2026-02-28T12:00:00.000Z'],
    ['020100000000000R', monthEnd, '2028-02-29T12:00:00.000Z'],
    ['001100000000000R', monthEnd, '2026-12-31T12:00:00.000Z'],
    ['001300000000000R', monthEnd, '2027-02-28T12:00:00.000Z'],
  ];
  for (const [text, from, expected] of cases)
    it(`${text} from ${new Date(from).toISOString()} -> ${expected}`, () => assert.equal(read(text, from), expected));
});

describe('parseSmppTime: empty and malformed', () => {
  it('reads an empty field as none', () => assert.deepEqual(parseSmppTime('', now), { kind: 'none' }));
  const malformed = [
    '270101100000000',
    '270101100000000+0',
    ' 70101100000000+',
    '27010110000000a+',
    '270101100000000*',
    '270101100000000r',
    '270229000000000+',
    '271301000000000+',
    '270001000000000+',
    '270100000000000+',
    '270431000000000+',
    '270101240000000+',
    '270101106000000+',
    '270101100060000+',
    '270101100000049+',
    // The relative form's tenths and offset are 000.
    '000000000100100R',
    '000000000100001R',
    '2027-01-01T10:00',
  ];
  for (const text of malformed)
    it(`refuses ${JSON.stringify(text)}`, () => assert.equal(parseSmppTime(text, now).kind, 'malformed'));
});

describe('smppSchedule: a submit_sm schedule', () => {
  const cases: Array<[string, number | null | 'malformed' | 'past']> = [
    ['', null],
    ['000000013000000R', now + 90 * 60_000],
    ['270101100000000+', Date.UTC(2027, 0, 1, 10)],
    ['260315090000100+', now + 100],
    // Now, or just past (a clock a little off): sent now.
    ['000000000000000R', null],
    ['260315090000000+', null],
    ['260315085955000+', null],
    ['260315085950000+', null],
    // Further back than the grace: refused.
    ['260315085949900+', 'past'],
    ['260315080000000+', 'past'],
    ['990101000000000+', 'past'],
    ['270229000000000+', 'malformed'],
    ['tomorrow', 'malformed'],
  ];
  for (const [text, expected] of cases)
    it(`${JSON.stringify(text)} -> ${String(expected)}`, () => {
      const s = smppSchedule(text, now);
      assert.equal(s.ok ? s.at : s.why, expected);
    });
});

describe('scheduleFieldsAt: an instant as /sms/send schedule fields', () => {
  const cases: Array<[number, string, string]> = [
    [Date.UTC(2027, 0, 1, 10), '2027-01-01', '13:00:00'],
    // Rounded up to the second: never due before the instant.
    [Date.UTC(2027, 0, 1, 10, 0, 0, 1), '2027-01-01', '13:00:01'],
    [Date.UTC(2026, 11, 31, 20, 59, 59, 500), '2027-01-01', '00:00:00'],
  ];
  for (const [at, date, time] of cases)
    it(`${new Date(at).toISOString()} -> ${date} ${time}, read back by parseSchedule`, () => {
      const fields = scheduleFieldsAt(at);
      assert.deepEqual(fields, { scheduled_date: date, scheduled_time: time });
      const back = parseSchedule({ date: fields.scheduled_date, time: fields.scheduled_time }, now);
      assert.ok(back.ok && back.value >= at && back.value - at < 1000);
    });
});
