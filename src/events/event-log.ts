import type { Prisma, PrismaClient } from '../db/generated/client.js';
import type { Logger } from '../logger.js';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import type { RemPubSub } from './pubsub.js';

export interface EventLogDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
  logger: Logger;
  /** Longest time an event waits in memory before it is written (batching window). */
  flushIntervalMs: number;
}

export interface EventLogOwner {
  turnId: string;
  sessionId: string;
  agent: string;
  depth: number;
  /** Highest seq already in the log (0 for a new turn; turn.lastSeq when resuming). */
  lastSeq: number;
}

/**
 * The append-only, numbered event log of one turn. `emit` numbers the event and publishes it at
 * once (so streaming stays live); writes are batched, so a token stream costs one INSERT per
 * batch, not per token. Events that end a burst of activity (final, approval_needed, error) are
 * written before they are published, so a late subscriber always finds them in the log.
 */
export class TurnEventLog {
  private seq: number;
  private pending: AgentEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Receives every event after it is numbered (used to forward child events to a parent). */
  onEvent: ((event: AgentEvent) => void) | undefined;

  constructor(
    private readonly deps: EventLogDeps,
    readonly owner: EventLogOwner,
  ) {
    this.seq = owner.lastSeq;
  }

  get lastSeq(): number {
    return this.seq;
  }

  emit(body: AgentEventBody): AgentEvent {
    const event = this.number(body);
    this.pending.push(event);
    this.publish(event);
    this.timer ??= setTimeout(() => void this.flush(), this.deps.flushIntervalMs);
    return event;
  }

  /** Emits an event that will be followed by silence: persisted first, then published. */
  async emitDurable(body: AgentEventBody): Promise<AgentEvent> {
    const event = this.number(body);
    this.pending.push(event);
    await this.flush();
    this.publish(event);
    return event;
  }

  /**
   * Ends the log: writes pending events, then the final event together with `persist` (the
   * turn's outcome) in one transaction, and only then publishes it. Whoever sees the final event
   * can read the finished turn.
   */
  async finish(body: AgentEventBody, persist: (tx: Prisma.TransactionClient) => Promise<unknown>): Promise<AgentEvent> {
    await this.flush();
    const event = this.number(body);
    await this.deps.prisma.$transaction(async (tx) => {
      await persist(tx);
      await tx.turnEvent.create({
        data: { turnId: event.turnId, seq: event.seq, type: event.type, payload: event as unknown as Prisma.InputJsonObject, createdAt: new Date(event.at) },
      });
      await tx.turn.update({ where: { id: this.owner.turnId }, data: { lastSeq: event.seq } });
    });
    this.publish(event);
    return event;
  }

  /** Writes every pending event; resolves once they are in the database. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.writing;
  }

  private number(body: AgentEventBody): AgentEvent {
    this.seq += 1;
    return {
      seq: this.seq,
      turnId: this.owner.turnId,
      at: new Date().toISOString(),
      agent: this.owner.agent,
      depth: this.owner.depth,
      ...body,
    } as AgentEvent;
  }

  private publish(event: AgentEvent): void {
    this.deps.pubsub.publish('turn:event', this.owner.turnId, event);
    this.deps.pubsub.publish('session:event', this.owner.sessionId, event);
    this.onEvent?.(event);
  }

  private async write(batch: AgentEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.seq;
    try {
      await this.deps.prisma.$transaction([
        this.deps.prisma.turnEvent.createMany({
          data: batch.map((event) => ({
            turnId: event.turnId,
            seq: event.seq,
            type: event.type,
            payload: event as unknown as Prisma.InputJsonObject,
            createdAt: new Date(event.at),
          })),
        }),
        this.deps.prisma.turn.update({ where: { id: this.owner.turnId }, data: { lastSeq: last } }),
      ]);
    } catch (error) {
      this.deps.logger.error({ err: error, turnId: this.owner.turnId, seqs: [batch[0]!.seq, last] }, 'failed to write turn events');
      throw error;
    }
  }
}
