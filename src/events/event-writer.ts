import type { Prisma, PrismaClient } from '../db/generated/client.js';
import type { Logger } from '../logger.js';
import type { AgentEvent } from './agent-event.js';

/**
 * Writes turn events for every turn of this process in shared batches: one INSERT per flush
 * interval however many turns are streaming, instead of one per event or per turn.
 */
export class EventWriter {
  private pending: AgentEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    readonly flushIntervalMs: number,
  ) {}

  enqueue(event: AgentEvent): void {
    this.pending.push(event);
    this.timer ??= setTimeout(() => void this.flush().catch(() => {}), this.flushIntervalMs);
  }

  /** Writes everything enqueued so far; resolves once it is in the database. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length) this.writing = this.writing.catch(() => {}).then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: AgentEvent[]): Promise<void> {
    try {
      // One JSON parameter instead of five per row: much cheaper to bind, above all on PGlite.
      await this.prisma.$executeRaw`
        INSERT INTO turn_events (turn_id, seq, type, payload, created_at)
        SELECT (e->>'turnId')::uuid, (e->>'seq')::int, e->>'type', e, (e->>'at')::timestamptz
        FROM jsonb_array_elements(${JSON.stringify(batch)}::jsonb) AS e`;
    } catch (error) {
      this.logger.error({ err: error, events: batch.length }, 'failed to write turn events');
      throw error;
    }
  }
}

export function toRow(event: AgentEvent): Prisma.TurnEventCreateManyInput {
  return { turnId: event.turnId, seq: event.seq, type: event.type, payload: event as unknown as Prisma.InputJsonObject, createdAt: new Date(event.at) };
}
