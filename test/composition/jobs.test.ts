/**
 * The job table's wake channels hold together: each channel raised somewhere reaches a row,
 * each row's channel is raised somewhere, and a channel that a process without job threads
 * relays to another process (NOTIFY, by thread) is raised there as the same channel.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { containerWakes, fromOtherProcesses, jobTable, threadsWokenBy } from '../../src/composition/jobs.js';
import type { WakeChannel } from '../../src/ports/wakes.js';

const raisedByContainers = new Set<WakeChannel>(
  Object.values(containerWakes).flatMap((raised) => [raised.sends, raised.events].filter((c) => c !== undefined)),
);
const raised = new Set<WakeChannel>([...raisedByContainers, ...Object.values(fromOtherProcesses), 'messages.handed']);

describe('the job table', () => {
  it('names each job once, and wakes each row by channels something raises', () => {
    assert.equal(new Set(jobTable.map((row) => row.name)).size, jobTable.length);
    for (const row of jobTable)
      for (const channel of row.wakes) assert.ok(raised.has(channel), `${row.name}: ${channel}`);
  });

  it('relays every channel raised to some thread with a row it wakes', () => {
    for (const channel of raised) assert.ok(threadsWokenBy(channel).length > 0, channel);
    assert.deepEqual(threadsWokenBy('messages.accepted'), ['dispatch']);
    assert.deepEqual(threadsWokenBy('outcomes.written'), ['dispatch', 'webhooks']);
  });

  it("raises in another process's thread the channel its HTTP thread relayed there", () => {
    for (const channel of [containerWakes.http.sends, containerWakes.http.events])
      if (channel !== undefined)
        for (const thread of threadsWokenBy(channel)) assert.equal(fromOtherProcesses[thread], channel);
  });

  it('stops the claim loops after the periodic jobs and before what counts their outcomes', () => {
    const turn = (name: string): string | undefined => jobTable.find((row) => row.name === name)?.stops;
    assert.equal(turn('dispatcher'), 'loop');
    assert.equal(turn('webhook-courier'), 'loop');
    assert.equal(turn('deriver'), 'last');
    assert.equal(turn('retention'), 'first');
  });
});
