/**
 * Which event-loop turn last read requests from their sockets.
 *
 * Every request a turn reads was in its socket when the turn polled (one pipelined behind
 * another on its connection aside). So a snapshot of the store taken after the poll phase in
 * which a request was read began is no older than anything acknowledged before the request
 * was sent, and one taken before it may be. db/turn-reads.ts lets a request share a read
 * transaction only if it opened in the request's turn.
 */
let turn = 0;
/** Whether the current poll phase has read a request (until the check phase that follows it). */
let reading = false;
const pollPhaseOver = () => {
  reading = false;
};

/** The HTTP server read a request (its listener runs in the poll phase). */
export function requestRead(): void {
  if (reading) return;
  reading = true;
  turn++;
  setImmediate(pollPhaseOver);
}

/** The number of the latest turn that read requests: it changes when a poll phase reads its first. */
export function requestTurn(): number {
  return turn;
}
