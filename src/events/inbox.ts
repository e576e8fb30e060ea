/** An unbounded queue that a consumer awaits in batches; `signal` wakes a waiting consumer for good. */
export class Inbox<T> {
  private items: T[] = [];
  private wake: (() => void) | undefined;

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.wake?.(), { once: true });
  }

  push(item: T) {
    this.items.push(item);
    this.wake?.();
  }

  /** Wakes a waiting consumer with nothing new: something it waits on changed (see its caller). */
  poke() {
    this.wake?.();
  }

  /** Everything queued, waiting for at least one item (or `timeoutMs`, then possibly nothing). */
  async next(timeoutMs?: number): Promise<T[]> {
    if (this.items.length === 0 && !this.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    const out = this.items;
    this.items = [];
    return out;
  }
}

/**
 * The generator `make` returns, stopped at once by return() or throw(): an async generator waiting
 * for its next event would only see them at its next yield, which for a paused turn may be hours
 * away; aborting the signal it is given wakes it instead.
 */
export function stoppable<T>(make: (signal: AbortSignal) => AsyncGenerator<T>, stop = new AbortController()): AsyncGenerator<T> {
  const events = make(stop.signal);
  const stopped = <R>(then: () => Promise<R>) => {
    stop.abort();
    return then();
  };
  return Object.assign(events, {
    return: (value: unknown) => stopped(() => AsyncGeneratorProto.return.call(events, value)),
    throw: (error: unknown) => stopped(() => AsyncGeneratorProto.throw.call(events, error)),
  }) as AsyncGenerator<T>;
}

const AsyncGeneratorProto = Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})())) as AsyncGenerator<unknown>;
