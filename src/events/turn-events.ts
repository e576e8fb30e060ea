import type { PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { AgentEvent } from './agent-event.js';
import type { EventHub } from './event-hub.js';
import type { EventRelay, RelayedTurn } from './event-relay.js';
import { readLog } from './event-log.js';
import { Inbox, stoppable } from './inbox.js';
import { isTerminal } from './turn-status.js';

export interface TurnEventsDeps {
  prisma: PrismaClient;
  /** The log's reads (one per subscriber, often) skip Prisma's client. */
  sql: SqlClient;
  hub: EventHub;
  relay: EventRelay;
}

/** How long events may stay missing before a subscriber gives up (they were lost, e.g. the holder crashed). */
const GAP_GIVE_UP_MS = 15_000;
/** Smallest pause between two reads that look for missing events. */
const GAP_REREAD_MS = 100;
/**
 * A turn held by another process sharing the database without Redis (`othersOnlyInLog`) reaches
 * this one only through the log: while nothing arrives here, it is read again after these pauses,
 * growing from the first to the last.
 */
const UNSHARED_POLL_MS = [250, 500, 1000, 2000];

/**
 * A turn's events with seq > `after`, in seq order with no gap and no duplicate, ending after the
 * turn's `final` event: the stored ones read once from the log, the published but not yet stored
 * ones from the hub (this process holds the turn) or from the relay (another instance does), then
 * live ones as they are published. Listening starts before anything is read, so nothing falls
 * between the parts; duplicates between them are dropped by seq.
 */
export function turnEventStream(deps: TurnEventsDeps, turn: TurnRow, after = 0): AsyncGenerator<AgentEvent> {
  return stoppable((signal) => streamEvents(deps, turn, after, signal));
}

type TurnRow = RelayedTurn & { status: string; lastSeq: number };

async function* streamEvents(deps: TurnEventsDeps, turn: TurnRow, after: number, signal: AbortSignal): AsyncGenerator<AgentEvent> {
  const inbox = new Inbox<AgentEvent>(signal);
  const stopLocal = deps.hub.listen(turn.id, (event) => inbox.push(event));
  // Closed here before its end (taken over): where the turn is held, and so where to look, changed.
  const stopWatching = deps.hub.watchClose(turn.id, () => inbox.poke());
  let stopRemote = () => {};
  try {
    const snapshot = deps.hub.snapshot(turn.id);
    // An ended turn's log is complete (its outcome is stored with its final event): nothing is live.
    if (deps.relay.shared && !isTerminal(turn.status)) stopRemote = await deps.relay.subscribe(turn, (event) => inbox.push(event));
    if (isTerminal(turn.status) && after >= turn.lastSeq) return;

    const order = new InOrder(after);
    if (snapshot) {
      // Only what is stored and not in the snapshot comes from the log; often that is nothing.
      const upTo = Math.min(snapshot.storedThrough, (snapshot.recent[0]?.seq ?? Infinity) - 1);
      if (upTo > after) order.add(await readLog(deps.sql, turn.id, after, upTo));
      order.add(snapshot.recent);
    } else {
      order.add(await readLog(deps.sql, turn.id, after));
      if (deps.relay.shared && !order.sawFinal) order.add(await deps.relay.recent(turn.id, order.last));
    }

    let gapSince = 0;
    let lastReread = 0;
    let quietPolls = 0;
    while (!signal.aborted) {
      let took = false;
      for (const event of order.take()) {
        took = true;
        yield event;
        if (event.type === 'final') return;
      }
      if (took) quietPolls = 0;
      const elsewhere = deps.relay.othersOnlyInLog && !deps.hub.isOpen(turn.id);
      if (order.waiting) {
        // Something arrived ahead of a missing event: read what is missing, once per arrival.
        gapSince ||= Date.now();
        if (Date.now() - gapSince > GAP_GIVE_UP_MS) throw new Error(`Events after seq ${order.last} of turn ${turn.id} were lost`);
        if (Date.now() - lastReread >= GAP_REREAD_MS) {
          lastReread = Date.now();
          order.add(await readLog(deps.sql, turn.id, order.last, order.firstWaiting - 1));
          if (deps.relay.shared) order.add(await deps.relay.recent(turn.id, order.last));
          if (!order.waiting || order.ready) continue;
        }
      } else gapSince = 0;
      if (elsewhere && !order.waiting) {
        const pause = UNSHARED_POLL_MS[Math.min(quietPolls++, UNSHARED_POLL_MS.length - 1)];
        const arrived = await inbox.next(pause);
        order.add(arrived.length || signal.aborted ? arrived : await readLog(deps.sql, turn.id, order.last));
        continue;
      }
      order.add(await inbox.next(order.waiting ? GAP_REREAD_MS : undefined));
    }
  } finally {
    stopLocal();
    stopWatching();
    stopRemote();
  }
}

/** Puts events from several sources back in seq order, dropping what was already taken. */
class InOrder {
  private readonly ahead = new Map<number, AgentEvent>();
  /** A final event was added (the turn's log is complete up to it). */
  sawFinal = false;

  constructor(public last: number) {}

  add(events: AgentEvent[]) {
    for (const event of events) {
      if (event.seq <= this.last) continue;
      this.ahead.set(event.seq, event);
      if (event.type === 'final') this.sawFinal = true;
    }
  }

  /** True when the next event in order is available. */
  get ready(): boolean {
    return this.ahead.has(this.last + 1);
  }

  /** True when events are held for a missing earlier one. */
  get waiting(): boolean {
    return this.ahead.size > 0 && !this.ready;
  }

  get firstWaiting(): number {
    return Math.min(...this.ahead.keys());
  }

  *take(): Generator<AgentEvent> {
    while (this.ahead.has(this.last + 1)) {
      const event = this.ahead.get(this.last + 1)!;
      this.ahead.delete(event.seq);
      this.last = event.seq;
      yield event;
    }
  }
}
