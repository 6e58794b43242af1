/** A destination's share of the webhook courier's slots, and its pauses, on a made-up clock. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DestinationSlots,
  defaultDestinationConcurrency,
  destinationOf,
  unhealthyOutcome,
} from '../../src/jobs/destination-slots.js';

const target = (url: string | null) => ({
  keyId: 7,
  url,
  secret: null,
  maxAttempts: 5,
  retryScheduleMs: null,
  events: null,
});

describe('destination slots', () => {
  it('names a destination by its URL\u2019s origin, or by its key without a usable URL', () => {
    assert.equal(destinationOf(target('https://hooks.example.com/a?b=1')), 'https://hooks.example.com');
    assert.equal(destinationOf(target('http://user:pw@10.0.0.1:8080/x')), 'http://10.0.0.1:8080');
    assert.equal(destinationOf(target(null)), 'key:7');
    assert.equal(destinationOf(target('not a url')), 'key:7');
  });

  it('counts no response, 429 and 5xx as unhealthy, other answers as healthy', () => {
    assert.deepEqual([null, 429, 500, 503, 200, 302, 400, 404].map(unhealthyOutcome), [
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    assert.deepEqual([1, 3, 4, 64, 256].map(defaultDestinationConcurrency), [1, 1, 1, 16, 64]);
  });

  it('caps attempts in flight and limits claims of the destination\u2019s keys to its room', () => {
    const slots = new DestinationSlots({
      concurrency: 2,
      total: 8,
      fastMs: 1000,
      fastStreak: 8,
      failuresBeforePause: 3,
      pauseMs: 100,
      maxPauseMs: 250,
    });
    const d = 'https://a.example';
    slots.start(1, d);
    assert.deepEqual([slots.room(d, 0), [...slots.keyLimits(0)]], [1, [[1, 1]]]);
    slots.start(2, d);
    assert.deepEqual(
      [slots.room(d, 0), [...slots.keyLimits(0)]],
      [
        0,
        [
          [1, 0],
          [2, 0],
        ],
      ],
    );
    assert.equal(slots.finish(d, 'healthy', 0), true, 'it was full: a waiting courier may claim');
    assert.equal(slots.finish(d, 'healthy', 0), false);
    assert.deepEqual([slots.room(d, 0), slots.keyLimits(0).size], [2, 0], 'an idle healthy destination is forgotten');
  });

  it('lets a destination that proved fast use all slots but half a share, and takes that back at its first slow answer', () => {
    const slots = new DestinationSlots({
      concurrency: 2,
      total: 8,
      fastMs: 100,
      fastStreak: 3,
      failuresBeforePause: 3,
      pauseMs: 100,
      maxPauseMs: 250,
    });
    const d = 'https://fast.example';
    const attempt = (ms: number) => {
      slots.start(1, d);
      slots.finish(d, 'healthy', 0, ms);
    };
    attempt(5);
    attempt(5);
    slots.start(1, d);
    assert.equal(slots.room(d, 0), 1, 'two fast answers are not yet a streak: its share of 2');
    slots.finish(d, 'healthy', 0, 5);
    assert.deepEqual([slots.room(d, 0), [...slots.keyLimits(0)]], [7, [[1, 7]]], 'a streak: 8 slots but half a share');
    attempt(500);
    assert.equal(slots.room(d, 0), 2, 'one slow answer: back to its share');
  });

  it('pauses after unhealthy attempts in a row, then probes one at a time; each failed probe doubles the pause, up to the most', () => {
    const slots = new DestinationSlots({
      concurrency: 4,
      total: 16,
      fastMs: 1000,
      fastStreak: 8,
      failuresBeforePause: 3,
      pauseMs: 100,
      maxPauseMs: 250,
    });
    const d = 'https://down.example';
    const fail = (at: number) => {
      slots.start(1, d);
      slots.finish(d, 'unhealthy', at);
    };
    fail(0);
    fail(1);
    assert.equal(slots.room(d, 2), 4, 'two failures: still served');
    slots.start(1, d);
    slots.finish(d, 'healthy', 2);
    fail(3);
    fail(4);
    assert.equal(slots.room(d, 5), 4, 'a healthy answer reset the count');
    fail(5);
    // [time, room]: paused 100 ms, then a probe; it fails: 200 ms; again: 250 (the most).
    const rooms: [number, number][] = [];
    const look = (t: number) => rooms.push([t, slots.room(d, t)]);
    look(104);
    look(105);
    fail(105);
    look(304);
    look(305);
    fail(305);
    look(554);
    look(555);
    assert.deepEqual(rooms, [
      [104, 0],
      [105, 1],
      [304, 0],
      [305, 1],
      [554, 0],
      [555, 1],
    ]);
    slots.start(1, d);
    assert.equal(slots.room(d, 555), 0, 'one probe at a time');
    slots.finish(d, 'healthy', 556);
    assert.equal(slots.room(d, 556), 4, 'a healthy probe ends the pauses');
  });

  it('lets attempts that end unhealthy during a pause neither extend it nor end it', () => {
    const slots = new DestinationSlots({
      concurrency: 4,
      total: 16,
      fastMs: 1000,
      fastStreak: 8,
      failuresBeforePause: 1,
      pauseMs: 100,
      maxPauseMs: 1000,
    });
    const d = 'https://slow.example';
    slots.start(1, d);
    slots.start(1, d);
    slots.finish(d, 'unhealthy', 0);
    slots.finish(d, 'unhealthy', 50);
    assert.deepEqual([slots.room(d, 99), slots.room(d, 100)], [0, 1]);
  });
});
