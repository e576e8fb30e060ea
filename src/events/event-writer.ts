import type { Prisma, PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import { inSpan } from '../telemetry/tracing.js';
import { isForeignKeyViolation, isTransientSqlState, sqlStateOf } from '../db/sql-state.js';
import type { Logger } from '../logger.js';
import type { AgentEvent } from './agent-event.js';
import { commitStatement, insertEventsIn, rowsStatement, type ModelCallRow, type TurnWrites } from './event-statements.js';

/** Longest pause between rounds that a busy writer stretches to (EVENT_FLUSH_MS when that is longer); a running round adds its own time. */
const MAX_FLUSH_WAIT_MS = 250;
/** Attempts at writing one turn's events before they are given up (with an error log). */
const MAX_ATTEMPTS = 5;
/**
 * Rows per INSERT: a statement's JSON parameter is parsed whole in the database's memory, and on
 * PGlite that memory (its WebAssembly heap) is never given back; a burst's round held ~9000 rows.
 */
const MAX_ROWS_PER_STATEMENT = 1000;
/** Commits (pause checkpoints, outcomes) written at once; more wait for the next round. */
const COMMIT_CONCURRENCY = 8;

/** Rows stored with events: in a transaction of their own (rare paths), or as one statement. */
type Persist = ((tx: Prisma.TransactionClient) => Promise<unknown>) | TurnWrites;

/** Events stored together with other rows (a turn's outcome, a pause checkpoint) in one transaction. */
export interface CommitRequest {
  /** The turn whose rows `persist` writes: the commit waits for that turn's earlier events even when it carries none. */
  turnId: string;
  /** In log order; may belong to several turns (a child's event and its copies in the ancestors' logs). */
  events: AgentEvent[];
  persist?: Persist;
}

interface CommitJob extends CommitRequest {
  turns: Set<string>;
  resolve(): void;
  reject(error: unknown): void;
  attempts: number;
}

/** What a turn's queue holds besides commits. */
type Row = AgentEvent | ModelCallRow;
type Item = Row | CommitJob;
const isCommit = (item: Item): item is CommitJob => 'turns' in item;
const isCall = (row: Row): row is ModelCallRow => 'llmCall' in row;
const eventsOf = (rows: Row[]) => rows.filter((row): row is AgentEvent => !isCall(row));

/**
 * Writes the turn events of this process. Every turn's events are written in seq order, so the
 * stored log of a turn is always a gap-free prefix; across turns, one INSERT per round carries
 * every turn's new events, however many turns stream. A commit (events plus other rows in one
 * transaction) takes its place in the order of each turn it touches, and carries the events queued
 * before it, so a turn's end costs one transaction.
 *
 * One turn's trouble stays with that turn: events of a turn that no longer exists (its session was
 * deleted) are dropped with a log line; a failed round is retried turn by turn, and only the turn
 * that keeps failing loses its events (logged, never silently).
 */
export class EventWriter {
  private readonly queues = new Map<string, Item[]>();
  private readonly attempts = new Map<string, number>();
  private readonly gone = new Set<string>();
  private readonly inFlight = new Set<string>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastRoundMs = 0;
  private roundDone: { promise: Promise<void>; resolve(): void } = deferred();

  constructor(
    private readonly prisma: PrismaClient,
    /** The statements of every round (plain rows and one-statement commits) skip Prisma's client. */
    private readonly sql: SqlClient,
    private readonly logger: Logger,
    /** EVENT_FLUSH_MS: the pause before a round while the writer is idle (see flushDelay). */
    private readonly eventFlushMs: number,
    /** Told about every event once it is stored (or given up), in seq order per turn. */
    private readonly onSettled: (events: AgentEvent[]) => void,
  ) {}

  enqueue(event: AgentEvent): void {
    if (this.gone.has(event.turnId)) return this.onSettled([event]);
    this.queueOf(event.turnId).push(event);
    this.schedule(this.flushDelay());
  }

  /** Stores a model call's row with the turn's next events (or its commit). */
  recordModelCall(row: ModelCallRow): void {
    if (this.gone.has(row.turnId)) return;
    this.queueOf(row.turnId).push(row);
    this.schedule(this.flushDelay());
  }

  /** Stores `request` after every event queued before it for the same turns; resolves once committed. */
  commit(request: CommitRequest): Promise<void> {
    if (this.gone.has(request.turnId)) return Promise.reject(new VanishedTurnError(request.turnId));
    return new Promise((resolve, reject) => {
      const job: CommitJob = { ...request, turns: new Set([request.turnId, ...request.events.map((e) => e.turnId)]), resolve, reject, attempts: 0 };
      for (const turnId of job.turns) this.queueOf(turnId).push(job);
      this.schedule(0);
    });
  }

  /** Resolves once everything queued so far for `turnIds` (every turn when omitted) is stored or given up. */
  async drain(turnIds?: Iterable<string>): Promise<void> {
    const ids = turnIds ? [...turnIds] : undefined;
    const busy = () => (ids ?? [...this.queues.keys(), ...this.inFlight]).some((id) => this.queues.has(id) || this.inFlight.has(id));
    while (busy()) {
      this.schedule(0);
      await this.roundDone.promise;
    }
  }

  private queueOf(turnId: string): Item[] {
    let queue = this.queues.get(turnId);
    if (!queue) this.queues.set(turnId, (queue = []));
    return queue;
  }

  /**
   * EVENT_FLUSH_MS, stretched to three times the last round's time up to MAX_FLUSH_WAIT_MS: busy
   * periods get bigger, fewer rounds (an embedded database writes on this very thread).
   */
  private flushDelay(): number {
    return Math.min(Math.max(MAX_FLUSH_WAIT_MS, this.eventFlushMs), Math.max(this.eventFlushMs, this.lastRoundMs * 3));
  }

  private schedule(delayMs: number) {
    if (this.running) return;
    if (this.timer && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.round().finally(() => {
        this.running = undefined;
        const done = this.roundDone;
        this.roundDone = deferred();
        done.resolve();
        if (this.queues.size) this.schedule(this.hasReadyCommit() ? 0 : this.flushDelay());
      });
    }, delayMs);
  }

  private hasReadyCommit(): boolean {
    for (const queue of this.queues.values()) if (queue.some(isCommit)) return true;
    return false;
  }

  /** One round: every turn's leading events in one INSERT, and the commits that are next in line. */
  private async round(): Promise<void> {
    const started = performance.now();
    const heads = new Map<string, { lead: Row[]; next?: CommitJob }>();
    for (const [turnId, queue] of this.queues) {
      const cut = queue.findIndex(isCommit);
      const lead = (cut < 0 ? queue : queue.slice(0, cut)) as Row[];
      heads.set(turnId, { lead, next: cut < 0 ? undefined : (queue[cut] as CommitJob) });
    }
    const ready = new Set<CommitJob>();
    for (const { next } of heads.values()) {
      if (next && !ready.has(next) && ready.size < COMMIT_CONCURRENCY && [...next.turns].every((t) => heads.get(t)?.next === next)) ready.add(next);
    }
    const plain: Row[] = [];
    const taken = new Map<CommitJob, Row[]>();
    for (const [turnId, { lead, next }] of heads) {
      const queue = this.queues.get(turnId)!;
      if (next && ready.has(next)) {
        taken.set(next, [...(taken.get(next) ?? []), ...lead]);
        queue.splice(0, lead.length + 1);
      } else {
        plain.push(...lead);
        queue.splice(0, lead.length);
      }
      if (queue.length === 0) this.queues.delete(turnId);
      if (lead.length || (next && ready.has(next))) this.inFlight.add(turnId);
    }
    // A round writes for many turns at once: its span is a root, not a child of whichever turn started the timer.
    const attributes = {
      'remgraph.events.rows': plain.length + [...taken.values()].reduce((n, e) => n + e.length, 0),
      'remgraph.events.commits': ready.size,
      'remgraph.events.turns': heads.size,
    };
    try {
      await inSpan('turn_events write', { root: true, attributes }, () =>
        Promise.all([this.writePlain(plain), ...[...ready].map((job) => this.runCommit(job, taken.get(job) ?? []))]),
      );
    } finally {
      this.inFlight.clear();
      this.lastRoundMs = performance.now() - started;
    }
  }

  /** A round's rows (grouped by turn) in statements of whole turns, one after another. */
  private async writePlain(rows: Row[]): Promise<void> {
    for (let start = 0; start < rows.length;) {
      let end = Math.min(start + MAX_ROWS_PER_STATEMENT, rows.length);
      while (end < rows.length && rows[end]!.turnId === rows[end - 1]!.turnId) end++;
      await this.writeRows(rows.slice(start, end));
      start = end;
    }
  }

  private async writeRows(rows: Row[]): Promise<void> {
    try {
      await this.insertRows(rows);
      this.settle(eventsOf(rows));
    } catch (error) {
      // Find the turn(s) at fault: every turn's rows on their own.
      const byTurn = new Map<string, Row[]>();
      for (const row of rows) byTurn.set(row.turnId, [...(byTurn.get(row.turnId) ?? []), row]);
      await Promise.all([...byTurn.values()].map((own) => this.writeOneTurn(own, error)));
    }
  }

  private async writeOneTurn(rows: Row[], roundError: unknown): Promise<void> {
    const turnId = rows[0]!.turnId;
    const events = eventsOf(rows);
    try {
      await this.insertRows(rows);
      this.attempts.delete(turnId);
      this.settle(events);
    } catch (error) {
      if (isForeignKeyViolation(error)) {
        // The turn was deleted (with its session) while it streamed.
        this.forget(turnId);
        this.settle(events);
        return;
      }
      const attempts = (this.attempts.get(turnId) ?? 0) + 1;
      if (!isTransient(error) || attempts >= MAX_ATTEMPTS) {
        this.attempts.delete(turnId);
        this.logger.error(
          { err: error, roundError, turnId, events: events.length, modelCalls: rows.length - events.length, attempts },
          'dropped turn events that could not be stored',
        );
        this.settle(events);
        return;
      }
      this.attempts.set(turnId, attempts);
      this.queueOf(turnId).unshift(...rows);
    }
  }

  private async runCommit(job: CommitJob, lead: Row[]): Promise<void> {
    const events = [...eventsOf(lead), ...job.events];
    const calls = lead.filter(isCall);
    try {
      const persist = job.persist;
      if (persist && typeof persist !== 'function') await this.writeInOne(job.turnId, persist, events, calls);
      else
        await this.prisma.$transaction(
          async (tx) => {
            if (persist) await persist(tx);
            await insertEventsIn(tx, events, calls);
          },
          { maxWait: 60_000, timeout: 60_000 },
        );
      this.settle(events);
      job.resolve();
    } catch (error) {
      job.attempts += 1;
      if (isTransient(error) && job.attempts < MAX_ATTEMPTS) {
        // Back in front of each of its turns, with the events it carried.
        for (const turnId of job.turns) this.queueOf(turnId).unshift(...lead.filter((row) => row.turnId === turnId), job);
        return;
      }
      // The caller hears of it (and logs it); its events are published all the same, so streams end.
      this.settle(events);
      if (isForeignKeyViolation(error)) this.forget(job.turnId);
      job.reject(error);
    }
  }

  /** Events and model calls of any turns in one statement, outside any transaction. */
  private async insertRows(rows: Row[]): Promise<void> {
    const statement = rowsStatement(eventsOf(rows), rows.filter(isCall));
    await this.sql.query(statement.text, statement.values);
  }

  private async writeInOne(turnId: string, writes: TurnWrites, events: AgentEvent[], calls: ModelCallRow[]): Promise<void> {
    const statement = commitStatement(turnId, writes, events, calls);
    if ((await this.sql.query(statement.text, statement.values)).length === 0) throw writes.refused();
  }

  /** A deleted turn's events (queued and to come) are dropped, with a log line. */
  private forget(turnId: string) {
    if (this.gone.has(turnId)) return;
    this.gone.add(turnId);
    const queue = this.queues.get(turnId) ?? [];
    this.queues.delete(turnId);
    for (const item of queue) {
      if (!isCommit(item)) continue;
      for (const other of item.turns)
        this.queues.set(
          other,
          (this.queues.get(other) ?? []).filter((i) => i !== item),
        );
      for (const [id, q] of this.queues) if (q.length === 0) this.queues.delete(id);
      item.reject(new VanishedTurnError(turnId));
    }
    this.settle(eventsOf(queue.filter((item): item is Row => !isCommit(item))));
    this.logger.warn({ turnId }, 'discarding events of a turn that no longer exists (its session was deleted)');
  }

  private settle(events: AgentEvent[]) {
    if (events.length) this.onSettled(events);
  }
}

/** A write for a turn that was deleted (with its session) while it ran. */
export class VanishedTurnError extends Error {
  readonly permanent = true;
  constructor(turnId: string) {
    super(`Turn ${turnId} no longer exists (its session was deleted)`);
    this.name = 'VanishedTurnError';
  }
}

/**
 * Connection trouble, serialization conflicts and resource limits pass; bad data, missing rows and
 * errors marked `permanent` do not.
 */
function isTransient(error: unknown): boolean {
  if ((error as { permanent?: unknown } | null)?.permanent === true) return false;
  const state = sqlStateOf(error);
  return !state || isTransientSqlState(state);
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
