import type { Prisma, PrismaClient } from '../db/generated/client.js';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { toRow, type EventWriter } from './event-writer.js';
import type { RemPubSub } from './pubsub.js';

export interface EventLogDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
  writer: EventWriter;
}

export interface EventLogOwner {
  turnId: string;
  sessionId: string;
  agent: string;
  depth: number;
  /** Highest seq already in the log (0 for a new turn; the last logged seq when resuming). */
  lastSeq: number;
}

/**
 * The append-only, numbered event log of one turn. `emit` numbers the event and publishes it at
 * once (so streaming stays live); the shared writer stores it within one flush interval, so a
 * token stream costs a share of one INSERT per interval, not an INSERT per token. Events followed
 * by silence (approval_needed) are stored before they are published, and the final event is
 * stored together with the turn's outcome, so a late subscriber always finds them in the log.
 */
export class TurnEventLog {
  private seq: number;
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
    this.deps.writer.enqueue(event);
    this.publish(event);
    return event;
  }

  /** Emits an event that will be followed by silence: stored first, then published. */
  async emitDurable(body: AgentEventBody): Promise<AgentEvent> {
    const event = this.number(body);
    this.deps.writer.enqueue(event);
    await this.deps.writer.flush();
    this.publish(event);
    return event;
  }

  /**
   * Ends the log: stores pending events, then the final event together with `persist` (the turn's
   * outcome) in one transaction, and only then publishes it. Whoever sees the final event can
   * read the finished turn.
   */
  async finish(body: AgentEventBody, persist: (tx: Prisma.TransactionClient) => Promise<unknown>): Promise<AgentEvent> {
    await this.deps.writer.flush();
    const event = this.number(body);
    await this.deps.prisma.$transaction(async (tx) => {
      await persist(tx);
      await tx.turnEvent.create({ data: toRow(event) });
      await tx.turn.update({ where: { id: this.owner.turnId }, data: { lastSeq: event.seq } });
    });
    this.publish(event);
    return event;
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
}
