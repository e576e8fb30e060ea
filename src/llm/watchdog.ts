/**
 * Aborts the request when the caller aborts or when nothing arrives for `ms`. Armed and paused
 * around every streamed chunk, so both only note a time: the one timer moves its own deadline.
 */
export class Watchdog {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  /** When the watchdog fires, unless paused or re-armed before; 0 while paused. */
  private deadline = 0;
  private readonly onUpstreamAbort = () => this.controller.abort();
  fired = false;

  constructor(
    private readonly ms: number,
    private readonly upstream: AbortSignal | undefined,
  ) {
    if (upstream?.aborted) this.controller.abort();
    else upstream?.addEventListener('abort', this.onUpstreamAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(): void {
    this.deadline = Date.now() + this.ms;
    this.timer ??= setTimeout(this.check, this.ms);
  }

  pause(): void {
    this.deadline = 0;
  }

  private readonly check = () => {
    this.timer = undefined;
    if (this.deadline === 0) return;
    const left = this.deadline - Date.now();
    if (left > 0) {
      this.timer = setTimeout(this.check, left);
      return;
    }
    this.fired = true;
    this.controller.abort();
  };

  /**
   * Stops watching. Unless the response was `drained` (read to its end), aborts the request: that
   * ends a connection the consumer stopped reading (break, error) instead of leaving it open. A
   * drained one is left alone: aborting it would only build an AbortError nobody sees, on every call.
   */
  dispose(drained: boolean): void {
    this.pause();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.upstream?.removeEventListener('abort', this.onUpstreamAbort);
    if (!drained) this.controller.abort();
  }
}
