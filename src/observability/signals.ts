/**
 * Things worth counting that happen far below the HTTP layer (an idempotent replay, a webhook
 * attempt), told to whoever watches the store they happened on. Keyed by the store's Kysely
 * instance, which every layer holds, so no signature between the HTTP layer and the
 * dispatcher changes; several apps in one process (the tests) each watch their own store.
 */
export type Signal =
  { kind: 'idempotency_replay' } | { kind: 'webhook_attempt'; outcome: 'succeeded' | 'failed' | 'refused' };

export type SignalListener = (signal: Signal) => void;

const listeners = new WeakMap<object, Set<SignalListener>>();

/** Watches the signals of one store; answers the function that stops watching. */
export function watchSignals(store: object, listener: SignalListener): () => void {
  let set = listeners.get(store);
  if (!set) listeners.set(store, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Tells the watchers of `store` (none: nothing happens). */
export function signal(store: object, event: Signal): void {
  const set = listeners.get(store);
  if (set) for (const listener of set) listener(event);
}
