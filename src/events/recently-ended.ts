/** How long a turn that ended is kept for its late followers (after that, they read it from the database). */
export const LATE_FOLLOWERS_MS = 30_000;

/**
 * What this process keeps of the turns that ended here lately, for their late followers: a client
 * that subscribes right after sendMessage to a turn that has already ended (a fast model), a page
 * reloaded after the answer. Each entry is kept for `keepMs` at most, within a total weight (oldest
 * out first). Expired entries go when the map is next used, or at the latest when the oldest one's
 * time is up (one unref'd timer while the map holds anything), so an idle server keeps none.
 */
export class RecentlyEnded<V> {
  private readonly entries = new Map<string, { value: V; until: number; weight: number }>();
  private weight = 0;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    private readonly keepMs: number,
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  set(id: string, value: V): void {
    this.delete(id);
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return;
    const now = Date.now();
    // Entries are kept in the order they were set, which is also the order they expire in.
    this.entries.set(id, { value, until: now + this.keepMs, weight });
    this.weight += weight;
    this.prune(now);
  }

  get(id: string): V | undefined {
    const entry = this.entries.get(id);
    if (entry && entry.until < Date.now()) this.delete(id);
    else return entry?.value;
    return undefined;
  }

  /** Entries held, expired ones not yet dropped (until the next use or the expiry timer) included. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets the entries `test` picks (e.g. those of a deleted session). */
  deleteWhere(test: (value: V) => boolean): void {
    for (const [id, entry] of this.entries) if (test(entry.value)) this.delete(id);
  }

  /** Drops the entries that expired or that the weight has no room for, then waits for the oldest left to expire. */
  private prune(now: number) {
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.maxWeight && entry.until >= now) break;
      this.delete(oldest);
    }
    const next = this.entries.values().next();
    if (next.done || this.expiry) return;
    this.expiry = setTimeout(
      () => {
        this.expiry = undefined;
        this.prune(Date.now());
      },
      next.value.until - now + 1,
    );
    this.expiry.unref();
  }

  private delete(id: string) {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.weight -= entry.weight;
  }
}
