/**
 * Gathers the outcomes of attempts that end close together and hands them to `write` in one
 * batch: the outcomes of one event-loop turn, and every outcome that ended while the batch
 * before was being written. Under load a batch holds many attempts for the price of one
 * transaction; an attempt ending alone is written at the end of its turn, as before.
 * `add` answers once its outcome's batch has been written (or rejects with why it was not).
 */
export class OutcomeBatches<T> {
  private waiting: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.writing = true;
    try {
      await this.write(batch.map((entry) => entry.item));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.writing = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
