/** Istanbul calendar rules, from tables: responses, limit windows, dates and day ends. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  dayBucket,
  dayDate,
  dayOfDate,
  dayStart,
  istanbulDay,
  endOfLocalDay,
  fromLocal,
  hourBucket,
  localDate,
  localDateTime,
  localParts,
  localTime,
  monthBucket,
  parseDate,
} from '../../src/domain/istanbul-time.js';

describe('istanbul-time', () => {
  describe('localDateTime', () => {
    const table: [number, string][] = [
      [Date.UTC(2026, 2, 15, 9, 0, 0), '2026-03-15 12:00:00'],
      [Date.UTC(2026, 2, 15, 20, 59, 59), '2026-03-15 23:59:59'],
      [Date.UTC(2026, 2, 15, 21, 0, 0), '2026-03-16 00:00:00'],
      [Date.UTC(2026, 2, 31, 20, 59, 59), '2026-03-31 23:59:59'],
      [Date.UTC(2026, 2, 31, 21, 0, 0), '2026-04-01 00:00:00'],
      [Date.UTC(2026, 11, 31, 21, 0, 0), '2027-01-01 00:00:00'],
      [Date.UTC(2028, 1, 28, 21, 0, 0), '2028-02-29 00:00:00'],
      [Date.UTC(2026, 0, 1, 0, 0, 0), '2026-01-01 03:00:00'],
      [Date.UTC(2026, 5, 1, 0, 0, 0, 999), '2026-06-01 03:00:00'],
      // Before 2016 Istanbul kept winter time (UTC+2).
      [Date.UTC(2015, 0, 15, 10, 0, 0), '2015-01-15 12:00:00'],
    ];
    for (const [instant, expected] of table) {
      it(`${new Date(instant).toISOString()} -> ${expected}`, () => {
        assert.equal(localDateTime(instant), expected);
        assert.equal(`${localDate(instant)} ${localTime(instant)}`, expected);
      });
    }

    it('uses a 24-hour clock with midnight as 00', () => {
      assert.equal(localTime(Date.UTC(2026, 2, 15, 21, 0, 0)), '00:00:00');
      assert.equal(localTime(Date.UTC(2026, 2, 15, 11, 0, 0)), '14:00:00');
    });
  });

  describe('limit window buckets', () => {
    const table: [number, string, string, string][] = [
      [Date.UTC(2026, 2, 15, 7, 59, 59), '2026-03-15T10', '2026-03-15', '2026-03'],
      [Date.UTC(2026, 2, 15, 8, 0, 0), '2026-03-15T11', '2026-03-15', '2026-03'],
      [Date.UTC(2026, 2, 15, 20, 59, 59), '2026-03-15T23', '2026-03-15', '2026-03'],
      [Date.UTC(2026, 2, 15, 21, 0, 0), '2026-03-16T00', '2026-03-16', '2026-03'],
      [Date.UTC(2026, 2, 31, 20, 59, 59), '2026-03-31T23', '2026-03-31', '2026-03'],
      [Date.UTC(2026, 2, 31, 21, 0, 0), '2026-04-01T00', '2026-04-01', '2026-04'],
      [Date.UTC(2026, 11, 31, 20, 59, 59), '2026-12-31T23', '2026-12-31', '2026-12'],
      [Date.UTC(2026, 11, 31, 21, 0, 0), '2027-01-01T00', '2027-01-01', '2027-01'],
    ];
    for (const [instant, hour, day, month] of table) {
      it(`${new Date(instant).toISOString()} is in hour ${hour}, day ${day}, month ${month}`, () => {
        assert.equal(hourBucket(instant), hour);
        assert.equal(dayBucket(instant), day);
        assert.equal(monthBucket(instant), month);
      });
    }

    it('buckets sort in time order as text', () => {
      const instants = [
        Date.UTC(2026, 8, 30, 20, 0, 0),
        Date.UTC(2026, 8, 30, 21, 0, 0),
        Date.UTC(2026, 9, 1, 6, 0, 0),
      ];
      const hours = instants.map(hourBucket);
      assert.deepEqual([...hours].sort(), hours);
    });
  });

  describe('fromLocal', () => {
    it('is the inverse of localParts', () => {
      for (const instant of [
        Date.UTC(2026, 2, 15, 9, 0, 0),
        Date.UTC(2026, 11, 31, 21, 0, 0),
        Date.UTC(2028, 1, 28, 22, 30, 15),
        Date.UTC(2015, 6, 15, 9, 0, 0),
      ]) {
        const p = localParts(instant);
        assert.equal(fromLocal(p.year, p.month, p.day, p.hour, p.minute, p.second), instant);
      }
    });

    it('reads Istanbul wall-clock times', () => {
      assert.equal(fromLocal(2026, 3, 15, 12, 0, 0), Date.UTC(2026, 2, 15, 9, 0, 0));
      assert.equal(fromLocal(2026, 4, 1, 0, 0, 0), Date.UTC(2026, 2, 31, 21, 0, 0));
      assert.equal(fromLocal(2027, 1, 1, 0, 0, 0), Date.UTC(2026, 11, 31, 21, 0, 0));
      assert.equal(fromLocal(2015, 1, 15, 12, 0, 0), Date.UTC(2015, 0, 15, 10, 0, 0));
      assert.equal(fromLocal(2015, 7, 15, 12, 0, 0), Date.UTC(2015, 6, 15, 9, 0, 0));
    });

    const invalid: [string, [number, number, number, number, number, number]][] = [
      ['2026-02-30', [2026, 2, 30, 0, 0, 0]],
      ['2026-02-29 (not a leap year)', [2026, 2, 29, 0, 0, 0]],
      ['2026-04-31', [2026, 4, 31, 0, 0, 0]],
      ['2026-13-01', [2026, 13, 1, 0, 0, 0]],
      ['2026-00-10', [2026, 0, 10, 0, 0, 0]],
      ['2026-01-00', [2026, 1, 0, 0, 0, 0]],
      ['25:99', [2026, 1, 1, 25, 99, 0]],
      ['24:00', [2026, 1, 1, 24, 0, 0]],
      ['12:60', [2026, 1, 1, 12, 60, 0]],
      ['12:00:60', [2026, 1, 1, 12, 0, 60]],
    ];
    for (const [name, args] of invalid) {
      it(`rejects ${name}`, () => {
        assert.equal(fromLocal(...args), null);
      });
    }

    it('accepts 2028-02-29 (a leap day) and 23:59:59', () => {
      assert.equal(fromLocal(2028, 2, 29, 0, 0, 0), Date.UTC(2028, 1, 28, 21, 0, 0));
      assert.equal(fromLocal(2026, 12, 31, 23, 59, 59), Date.UTC(2026, 11, 31, 20, 59, 59));
    });
  });

  describe('parseDate', () => {
    it('reads YYYY-MM-DD', () => {
      assert.deepEqual(parseDate('2026-03-05'), { year: 2026, month: 3, day: 5 });
      assert.deepEqual(parseDate('2028-02-29'), { year: 2028, month: 2, day: 29 });
    });
    for (const text of [
      '2026-02-30',
      '2026-3-05',
      '26-03-05',
      '2026/03/05',
      '2026-03-05 ',
      ' 2026-03-05',
      '2026-03-05T00:00',
      '',
      'tomorrow',
      '2026-13-01',
    ]) {
      it(`rejects ${JSON.stringify(text)}`, () => {
        assert.equal(parseDate(text), null);
      });
    }
  });

  describe('endOfLocalDay', () => {
    const table: [string, number][] = [
      ['2026-03-15', Date.UTC(2026, 2, 15, 21, 0, 0)],
      ['2026-03-31', Date.UTC(2026, 2, 31, 21, 0, 0)],
      ['2026-02-28', Date.UTC(2026, 1, 28, 21, 0, 0)],
      ['2028-02-28', Date.UTC(2028, 1, 28, 21, 0, 0)],
      ['2028-02-29', Date.UTC(2028, 1, 29, 21, 0, 0)],
      ['2026-12-31', Date.UTC(2026, 11, 31, 21, 0, 0)],
      ['2026-04-30', Date.UTC(2026, 3, 30, 21, 0, 0)],
      // A 23-hour day: Istanbul moved its clocks forward on 2015-03-29.
      ['2015-03-29', Date.UTC(2015, 2, 29, 21, 0, 0)],
      ['2015-03-28', Date.UTC(2015, 2, 28, 22, 0, 0)],
    ];
    for (const [date, expected] of table) {
      it(`${date} ends at ${new Date(expected).toISOString()}`, () => {
        const end = endOfLocalDay(date);
        assert.equal(end, expected);
        assert.ok(end !== null);
        assert.equal(localDateTime(end), `${localDate(end)} 00:00:00`);
        assert.equal(localDate(end - 1000), date);
      });
    }

    it('is null for a date that does not exist', () => {
      assert.equal(endOfLocalDay('2026-02-30'), null);
      assert.equal(endOfLocalDay('not a date'), null);
    });
  });
});

describe('Istanbul day numbers', () => {
  it('count days from the Istanbul midnight, not the UTC one', () => {
    // 2026-11-27 21:30 UTC is 2026-11-28 00:30 in Istanbul.
    const lateUtc = Date.UTC(2026, 10, 27, 21, 30);
    assert.equal(dayDate(istanbulDay(lateUtc)), '2026-11-28');
    assert.equal(dayDate(istanbulDay(lateUtc - 3_600_000)), '2026-11-27');
  });

  it('start at the Istanbul midnight and read back from their date', () => {
    const day = dayOfDate('2026-11-28');
    assert.notEqual(day, null);
    assert.equal(dayStart(day ?? 0), Date.UTC(2026, 10, 27, 21, 0));
    assert.equal(istanbulDay(dayStart(day ?? 0)), day);
    assert.equal(dayOfDate('2026-02-30'), null);
  });

  it('follow the zone data where the offset was not +3 (summer time in 2015)', () => {
    // 2015-07-01 was UTC+3 (summer time), 2015-01-15 was UTC+2: midnight moved with it.
    assert.equal(dayStart(dayOfDate('2015-01-15') ?? 0), Date.UTC(2015, 0, 14, 22, 0));
    assert.equal(dayDate(istanbulDay(Date.UTC(2015, 0, 14, 22, 30))), '2015-01-15');
    assert.equal(dayDate(istanbulDay(Date.UTC(2015, 0, 14, 21, 30))), '2015-01-14');
  });
});
