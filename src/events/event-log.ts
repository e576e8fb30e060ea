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
  private readonly listeners: ((event: AgentEvent) => void)[] = [];

  constructor(
    private readonly deps: EventLogDeps,
    readonly owner: EventLogOwner,
  ) {
    this.seq = owner.lastSeq;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Calls `listener` with every event once published (e.g. to forward a child's events to its parent). */
  listen(listener: (event: AgentEvent) => void): void {
    this.listeners.push(listener);
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
   * Stores pending events, then `bodies` together with `persist` (e.g. the turn's outcome or its
   * pause checkpoint) in one transaction, and only then publishes them: whoever sees these events
   * can read the state they announce.
   */
  async commit(bodies: AgentEventBody[], persist: (tx: Prisma.TransactionClient) => Promise<unknown>): Promise<AgentEvent[]> {
    await this.deps.writer.flush();
    const events = bodies.map((body) => this.number(body));
    await this.deps.prisma.$transaction(async (tx) => {
      await persist(tx);
      for (const event of events) await tx.turnEvent.create({ data: toRow(event) });
      await tx.turn.update({ where: { id: this.owner.turnId }, data: { lastSeq: this.seq } });
    });
    for (const event of events) this.publish(event);
    return events;
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
    publishEvents(this.deps.pubsub, this.owner.sessionId, [event]);
    for (const listener of this.listeners) listener(event);
  }
}

/**
 * Appends an event to the log of a turn that no process is running (paused or orphaned), taking
 * the next seq under the turn's row lock. `agent`/`depth` describe the turn. Publish the returned
 * event after the transaction commits.
 */
export async function appendToIdleLog(
  tx: Prisma.TransactionClient,
  turn: { id: string; agent: string; depth: number },
  body: AgentEventBody,
): Promise<AgentEvent> {
  const [row] = await tx.$queryRaw<{ last_seq: number }[]>`
    UPDATE turns SET last_seq = GREATEST(last_seq, (SELECT COALESCE(MAX(seq), 0) FROM turn_events WHERE turn_id = ${turn.id}::uuid)) + 1
    WHERE id = ${turn.id}::uuid RETURNING last_seq`;
  const event = { seq: row!.last_seq, turnId: turn.id, at: new Date().toISOString(), agent: turn.agent, depth: turn.depth, ...body } as AgentEvent;
  await tx.turnEvent.create({ data: toRow(event) });
  return event;
}

/** Highest seq in a turn's log (the writer's batches included once flushed). */
export async function lastLoggedSeq(prisma: PrismaClient | Prisma.TransactionClient, turnId: string): Promise<number> {
  const row = await prisma.turnEvent.aggregate({ where: { turnId }, _max: { seq: true } });
  return row._max.seq ?? 0;
}

/** Publishes stored events on the turn's and the session's channels. */
export function publishEvents(pubsub: RemPubSub, sessionId: string, events: AgentEvent[]): void {
  for (const event of events) {
    pubsub.publish('turn:event', event.turnId, event);
    pubsub.publish('session:event', sessionId, event);
  }
}
