import type { PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { Logger } from '../logger.js';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import type { EventRelay } from './event-relay.js';
import type { ModelCallRow } from './event-statements.js';
import { EventWriter, type CommitRequest } from './event-writer.js';
import { LATE_FOLLOWERS_MS, RecentlyEnded } from './recently-ended.js';
import { storable } from './storable.js';

let clockMs = 0;
let clockIso = '';
let secondMs = 0;
/** `YYYY-MM-DDTHH:mm:ss.` of the current second. */
let secondIso = '';
/**
 * The current time as an ISO string, made once per millisecond however many events share it, and
 * formatted by Date once per second (a slow stream stamps each event in a millisecond of its own).
 */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== clockMs) {
    clockMs = ms;
    const second = ms - (ms % 1000);
    if (second !== secondMs) {
      secondMs = second;
      secondIso = new Date(second).toISOString().slice(0, -4);
    }
    clockIso = `${secondIso}${String(ms - second).padStart(3, '0')}Z`;
  }
  return clockIso;
}

/** A turn as the hub needs to know it. */
export interface HubTurn {
  id: string;
  sessionId: string;
  agent: string;
  depth: number;
  parentId: string | null;
  agentPath: string[];
}

interface HeldEvent {
  event: AgentEvent;
  /** False while the commit it belongs to is being stored. */
  ready: boolean;
}

interface OpenTurn extends HubTurn {
  /** Highest seq given out. */
  seq: number;
  /** Highest seq published. */
  published: number;
  /** Highest seq known to be stored. */
  stored: number;
  /** Numbered events that wait for a commit ahead of them before they may be published, in seq order. */
  held: HeldEvent[];
  /**
   * Published events, in seq order: every one not yet stored (what a late subscriber cannot read
   * from the log), after the last KEEP_STORED stored ones (what it need not read from the log).
   */
  tail: AgentEvent[];
}

/**
 * Stored events an open turn keeps in memory besides its unstored ones: a subscriber that arrives
 * while the turn streams (a client following it after sendMessage) reads no recent event from the log.
 */
export const KEEP_STORED = 512;

/** Events of ended turns kept for late followers, in all (see `close`). */
const ENDED_EVENTS = 20_000;

export interface TurnSnapshot {
  /** Published events of the turn, in seq order: every one not stored yet, after the latest stored ones. */
  recent: AgentEvent[];
  /** Every event up to this seq is stored. */
  storedThrough: number;
}

export type EventListener = (event: AgentEvent) => void;

export interface EventHubDeps {
  prisma: PrismaClient;
  sql: SqlClient;
  /** EVENT_FLUSH_MS: the writer's pause before a round while it is idle (config/database.ts says how load stretches it). */
  eventFlushMs: number;
  relay: EventRelay;
  logger: Logger;
}

/**
 * The one place where turn events are numbered, forwarded and delivered, one per process.
 *
 * A turn is open in the hub while this process holds its tree (runs it, or appends to it while it
 * is paused). Emitting numbers the event in its turn's log, copies it into every open ancestor's
 * log as a `child` event, queues all of them for the batched writer and publishes them at once:
 * to this process's subscribers directly, and once through the relay, where other instances' (and,
 * with a shared relay, this one's) followers of the turn or of its session get it. A commit (events stored together with the rows they announce: a pause
 * checkpoint, a turn's outcome) is published only once stored, and later events of the same turns
 * wait behind it, so every subscriber sees each turn's events in seq order.
 *
 * Subscribers of a turn this process holds, or that reach it through a shared relay (Redis), do not
 * poll: what is stored they read once from the log, what is published but not yet stored they get
 * from `snapshot`, and the rest arrives through `listen`. A turn held by another process without a
 * shared relay is followed by reading its log (turn-events.ts).
 */
export class EventHub {
  private readonly turns = new Map<string, OpenTurn>();
  /** Turns closed after their final event, with their latest events: see `close`. */
  private readonly ended = new RecentlyEnded<TurnSnapshot & { sessionId: string }>(LATE_FOLLOWERS_MS, ENDED_EVENTS, (t) => t.recent.length);
  private readonly listeners = new Map<string, Set<EventListener>>();
  /** Told when their turn is closed here before its final event: see `watchClose`. */
  private readonly closeWatchers = new Map<string, Set<() => void>>();
  /** Followers of a session's events, without a shared relay (which delivers them otherwise). */
  private readonly sessionListeners = new Map<string, Set<EventListener>>();
  readonly writer: EventWriter;

  constructor(private readonly deps: EventHubDeps) {
    this.writer = new EventWriter(deps.prisma, deps.sql, deps.logger, deps.eventFlushMs, (events) => this.settled(events));
  }

  /** What the hub holds now, counted (a leak shows as a count that only grows: `kill -USR2`, see app.ts). */
  diagnostics(): Record<string, number> {
    const total = (map: Map<string, Set<unknown>>) => [...map.values()].reduce((sum, set) => sum + set.size, 0);
    return {
      openTurns: this.turns.size,
      endedTurns: this.ended.size,
      turnListeners: total(this.listeners),
      sessionListeners: total(this.sessionListeners),
      closeWatchers: total(this.closeWatchers),
    };
  }

  /** Starts numbering `turn`'s events after `lastSeq` (0 for a new turn, the last logged seq otherwise). */
  open(turn: HubTurn, lastSeq: number): void {
    if (this.turns.has(turn.id)) return;
    this.turns.set(turn.id, { ...turn, seq: lastSeq, published: lastSeq, stored: lastSeq, held: [], tail: [] });
  }

  isOpen(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  /**
   * Stops numbering for turns whose events are all stored (see `drain`). A turn that ended (its
   * final event published) keeps its latest events here a while for followers that come late,
   * who then read nothing from the log; a paused one does not (its log goes on elsewhere, later).
   */
  close(turnIds: Iterable<string>): void {
    for (const id of turnIds) {
      const turn = this.turns.get(id);
      if (!turn) continue;
      this.turns.delete(id);
      if (turn.tail.at(-1)?.type === 'final') this.ended.set(id, { recent: turn.tail, storedThrough: turn.stored, sessionId: turn.sessionId });
      else for (const watcher of this.closeWatchers.get(id) ?? []) watcher();
    }
  }

  /**
   * Calls `onClosed` if the turn is closed here before its final event (another process took its
   * tree over): its events go on there, and reach this process only as that one shares them.
   */
  watchClose(turnId: string, onClosed: () => void): () => void {
    return follow(this.closeWatchers, turnId, onClosed);
  }

  /** Forgets the ended turns of a deleted session. */
  forgetSession(sessionId: string): void {
    this.ended.deleteWhere((turn) => turn.sessionId === sessionId);
  }

  /** Resolves once every event of these turns emitted so far is stored. */
  drain(turnIds: Iterable<string>): Promise<void> {
    return this.writer.drain(turnIds);
  }

  /** Highest seq published for an open turn. */
  lastSeq(turnId: string): number | undefined {
    return this.turns.get(turnId)?.published;
  }

  /** The seq of an open turn's final event, once published (its log ends there). */
  finalSeq(turnId: string): number | undefined {
    const last = this.turns.get(turnId)?.tail.at(-1);
    return last?.type === 'final' ? last.seq : undefined;
  }

  emit(turnId: string, body: AgentEventBody): AgentEvent {
    const turn = this.held(turnId);
    const event = this.stamp(turn, storable(body));
    const copies = turn.parentId === null ? undefined : this.copies(turn, event);
    this.deliver(turn, event);
    if (copies) for (const [parent, copy] of copies) this.deliver(parent, copy);
    return event;
  }

  /**
   * Emits `bodies` and stores them together with `persist` (in one transaction, or one statement), after every event
   * emitted before them; they are published (and later events of the same turns released) once
   * that transaction has committed, so whoever sees them can read the state they announce.
   */
  async commit(turnId: string, bodies: AgentEventBody[], persist?: CommitRequest['persist']): Promise<AgentEvent[]> {
    const events = bodies.flatMap((body) => this.number(turnId, body));
    const entries = events.map((event) => {
      const entry: HeldEvent = { event, ready: false };
      this.turns.get(event.turnId)!.held.push(entry);
      return entry;
    });
    try {
      await this.writer.commit({ turnId, events, persist });
    } finally {
      for (const entry of entries) entry.ready = true;
      for (const id of new Set(events.map((e) => e.turnId))) this.release(this.turns.get(id));
    }
    return events.filter((e) => e.turnId === turnId);
  }

  /** Stores a model call's row with the turn's next events (a turn's model calls are stored before its outcome). */
  recordModelCall(row: ModelCallRow): void {
    this.writer.recordModelCall(row);
  }

  /** Calls `listener` with each event of the turn published by this process from now on. */
  listen(turnId: string, listener: EventListener): () => void {
    return follow(this.listeners, turnId, listener);
  }

  /**
   * Calls `listener` with each event of every turn of the session published from now on: by this
   * process, or with a shared relay by any instance; resolves once that is in effect.
   */
  async listenSession(sessionId: string, listener: EventListener): Promise<() => void> {
    if (this.deps.relay.shared) return this.deps.relay.subscribeSession(sessionId, listener);
    return follow(this.sessionListeners, sessionId, listener);
  }

  /**
   * For a turn open here: its published events that are not stored yet, and the latest stored ones.
   * For one that ended here lately: its latest events, its final one last.
   */
  snapshot(turnId: string): TurnSnapshot | undefined {
    const turn = this.turns.get(turnId);
    if (turn) return { recent: [...turn.tail], storedThrough: turn.stored };
    const ended = this.ended.get(turnId);
    return ended && { recent: ended.recent, storedThrough: ended.storedThrough };
  }

  /** Numbers an event in its turn's log and copies it into every open ancestor's log. */
  private number(turnId: string, body: AgentEventBody): AgentEvent[] {
    const turn = this.held(turnId);
    const event = this.stamp(turn, storable(body));
    return [event, ...this.copies(turn, event).map(([, copy]) => copy)];
  }

  private held(turnId: string): OpenTurn {
    const turn = this.turns.get(turnId);
    if (!turn) throw new Error(`Turn ${turnId} is not held by this process`);
    return turn;
  }

  /** `event`'s copy in the log of each open ancestor of `turn`, numbered there, nearest first. */
  private copies(turn: OpenTurn, event: AgentEvent): [OpenTurn, AgentEvent][] {
    const out: [OpenTurn, AgentEvent][] = [];
    // Every ancestor gets the same copy: a grandchild's event keeps its own turn, agent and path.
    const copy: AgentEventBody =
      event.type === 'child'
        ? { type: 'child', childTurnId: event.childTurnId, childAgent: event.childAgent, path: event.path, event: event.event }
        : { type: 'child', childTurnId: turn.id, childAgent: turn.agent, path: turn.agentPath, event };
    for (let parent = this.turns.get(turn.parentId ?? ''); parent; parent = this.turns.get(parent.parentId ?? '')) out.push([parent, this.stamp(parent, copy)]);
    return out;
  }

  /** Queues a numbered event for the writer and publishes it (once earlier commits of its turn are stored). */
  private deliver(turn: OpenTurn, event: AgentEvent) {
    this.writer.enqueue(event);
    this.offer(turn, event, true);
  }

  private stamp(turn: OpenTurn, body: AgentEventBody): AgentEvent {
    turn.seq += 1;
    return { seq: turn.seq, turnId: turn.id, at: isoNow(), agent: turn.agent, depth: turn.depth, ...body } as AgentEvent;
  }

  /** Publishes a ready event at once unless earlier ones of its turn are still held. */
  private offer(turn: OpenTurn, event: AgentEvent, ready: boolean) {
    if (turn.held.length === 0 && ready) return this.publish(turn, event);
    turn.held.push({ event, ready });
  }

  private release(turn: OpenTurn | undefined) {
    if (!turn) return;
    while (turn.held[0]?.ready) this.publish(turn, turn.held.shift()!.event);
  }

  private publish(turn: OpenTurn, event: AgentEvent) {
    turn.published = event.seq;
    turn.tail.push(event);
    if (event.seq <= turn.stored) trim(turn);
    const listeners = this.listeners.get(turn.id);
    if (listeners) for (const listener of listeners) listener(event);
    if (this.deps.relay.shared) this.deps.relay.publish(turn.sessionId, event);
    else for (const listener of this.sessionListeners.get(turn.sessionId) ?? []) listener(event);
  }

  /** Called with batches of stored events (in seq order per turn): trims each turn's tail once per batch. */
  private settled(events: AgentEvent[]) {
    const touched = new Set<OpenTurn>();
    for (const event of events) {
      const turn = this.turns.get(event.turnId);
      if (!turn || event.seq <= turn.stored) continue;
      turn.stored = event.seq;
      touched.add(turn);
    }
    for (const turn of touched) trim(turn);
  }
}

/** Drops the stored events of a turn's tail beyond the latest KEEP_STORED. */
function trim(turn: OpenTurn) {
  let stored = 0;
  while (stored < turn.tail.length && turn.tail[stored]!.seq <= turn.stored) stored++;
  if (stored > KEEP_STORED) turn.tail.splice(0, stored - KEEP_STORED);
}

function follow<T>(listeners: Map<string, Set<T>>, key: string, listener: T): () => void {
  let set = listeners.get(key);
  if (!set) listeners.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && listeners.get(key) === set) listeners.delete(key);
  };
}
