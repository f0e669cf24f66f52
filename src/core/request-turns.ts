/**
 * Whether the event-loop turn running now has read requests from their sockets, and has not
 * yet left the poll phase in which it read them.
 *
 * Every request such a turn starts was in its socket when the turn polled (one pipelined
 * behind another on its connection aside), so a snapshot of the store taken during the turn
 * is no older than anything those requests could have seen acknowledged before they were
 * sent. A snapshot taken in another phase (a timer, a setImmediate callback) could be: the
 * next poll may read a request sent after it. db/turn-reads.ts shares a read transaction only
 * across such a turn.
 */
let reading = false;
const pollPhaseOver = () => {
  reading = false;
};

/** The HTTP server read a request (its listener runs in the poll phase): this turn reads requests until its poll phase ends. */
export function requestRead(): void {
  if (reading) return;
  reading = true;
  // The turn's check phase, which follows its poll phase, runs this first.
  setImmediate(pollPhaseOver);
}

/** Whether this turn has read requests and is still in the poll phase in which it read them. */
export function readingRequests(): boolean {
  return reading;
}
