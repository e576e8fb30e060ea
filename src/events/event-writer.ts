import type { Prisma, PrismaClient } from '../db/generated/client.js';
import type { Logger } from '../logger.js';
import type { AgentEvent } from './agent-event.js';

/** Longest an event waits before its batch is written, however busy the process is (unless EVENT_FLUSH_MS is longer). */
export const MAX_FLUSH_WAIT_MS = 250;

/**
 * Writes turn events for every turn of this process in shared batches: one INSERT per flush
 * interval however many turns are streaming, instead of one per event or per turn. At most one
 * write is in flight; events arriving meanwhile wait for the next one, so batches grow with load
 * instead of writes queueing up behind each other.
 */
export class EventWriter {
  private pending: AgentEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private lastWriteMs = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    readonly flushIntervalMs: number,
  ) {}

  enqueue(event: AgentEvent): void {
    this.pending.push(event);
    this.schedule();
  }

  /** Writes everything enqueued so far; resolves once it is in the database. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight || this.pending.length) {
      if (this.inFlight) await this.inFlight;
      else await this.start();
    }
  }

  private schedule() {
    if (this.timer || this.inFlight) return;
    // Writing must not eat the process (an embedded database writes on this thread): wait at
    // least three times as long as the last write took, so busy periods get bigger, fewer batches.
    const cap = Math.max(MAX_FLUSH_WAIT_MS, this.flushIntervalMs);
    const wait = Math.min(cap, Math.max(this.flushIntervalMs, this.lastWriteMs * 3));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start().catch(() => {});
    }, wait);
  }

  private start(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const batch = this.pending;
    this.pending = [];
    this.inFlight = this.write(batch).finally(() => {
      this.inFlight = undefined;
      if (this.pending.length) this.schedule();
    });
    return this.inFlight;
  }

  private async write(batch: AgentEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const started = performance.now();
    try {
      // One JSON parameter instead of five per row: much cheaper to bind, above all on PGlite.
      await this.prisma.$executeRaw`
        INSERT INTO turn_events (turn_id, seq, type, payload, created_at)
        SELECT (e->>'turnId')::uuid, (e->>'seq')::int, e->>'type', e, (e->>'at')::timestamptz
        FROM jsonb_array_elements(${JSON.stringify(batch)}::jsonb) AS e`;
    } catch (error) {
      this.logger.error({ err: error, events: batch.length }, 'failed to write turn events');
      throw error;
    } finally {
      this.lastWriteMs = performance.now() - started;
    }
  }
}

export function toRow(event: AgentEvent): Prisma.TurnEventCreateManyInput {
  return { turnId: event.turnId, seq: event.seq, type: event.type, payload: event as unknown as Prisma.InputJsonObject, createdAt: new Date(event.at) };
}
