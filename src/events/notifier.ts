/**
 * In-process wake-up for the dispatcher: a committed write calls notifyOutbox() so its
 * events go out at once instead of at the next poll. Polling still catches everything
 * (writes of other processes, a missed nudge), so a nudge is an optimisation only.
 */

type Listener = () => void;

const listeners = new Set<Listener>();

export function notifyOutbox(): void {
  for (const listener of listeners) listener();
}

export function onOutboxNotified(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
