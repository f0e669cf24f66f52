/**
 * Things worth counting that happen far below the HTTP layer (an idempotent replay, a webhook
 * attempt), told to whoever watches the store they happened on (`Database.signals`): the
 * metrics of the app serving it. Several apps in one process (the tests) each watch their own.
 */
export type Signal =
  { kind: 'idempotency_replay' } | { kind: 'webhook_attempt'; outcome: 'succeeded' | 'failed' | 'refused' };

export type SignalListener = (signal: Signal) => void;

export class Signals {
  readonly #listeners = new Set<SignalListener>();

  /** Watches the signals; answers the function that stops watching. */
  watch(listener: SignalListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the watchers (none: nothing happens). */
  emit(signal: Signal): void {
    for (const listener of this.#listeners) listener(signal);
  }
}
