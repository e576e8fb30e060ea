import type { AgentEvent } from './agent-event.js';

// The form a turn's events take in its turn_events rows. Each event is stored without its turnId
// (the row's turn_id), and each run of consecutive content events of one agent is ONE item: the
// deltas, with each event's time as milliseconds after the run's first. A plain turn's 50 streamed
// tokens then cost the database one small JSON value instead of 50 objects of eight fields: a
// tenth of the bytes to parse and store, and under the 2 kB from which PostgreSQL compresses a row
// before storing it.
// Rows written before this form (whole events, turnId included) read back as they were.

/** Consecutive content events of one agent at one depth, seq `seq` onwards. */
interface ContentRun {
  type: 'content_run';
  seq: number;
  /** The first event's time (ISO); `ms[i]` is the i-th event's, in milliseconds after it. */
  at: string;
  agent: string;
  depth: number;
  deltas: string[];
  ms: number[];
}

/** An event as stored: a content run, or the event itself (its turnId left out since this form). */
export type StoredItem = ContentRun | (Omit<AgentEvent, 'turnId'> & { turnId?: string });

/** The keys of a content event: one with any other is stored whole, so that it reads back whole. */
const CONTENT_KEYS = 7;

/** The items that store `events` (all of one turn, in seq order). */
export function packEvents(events: readonly AgentEvent[]): StoredItem[] {
  const items: StoredItem[] = [];
  let run: ContentRun | undefined;
  let runStart = 0;
  for (const event of events) {
    if (event.type === 'content' && plainContent(event)) {
      const time = Date.parse(event.at);
      // A run holds only events whose time it gives back exactly.
      const exact = new Date(time).toISOString() === event.at;
      if (run && exact && run.agent === event.agent && run.depth === event.depth && run.seq + run.deltas.length === event.seq) {
        run.deltas.push(event.delta);
        run.ms.push(time - runStart);
        continue;
      }
      if (exact) {
        run = { type: 'content_run', seq: event.seq, at: event.at, agent: event.agent, depth: event.depth, deltas: [event.delta], ms: [0] };
        runStart = time;
        items.push(run);
        continue;
      }
    }
    run = undefined;
    const { turnId: _turnId, ...item } = event;
    items.push(item);
  }
  return items;
}

/** The events of `turnId` that `items` store, in order. */
export function unpackEvents(turnId: string, items: readonly StoredItem[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const item of items) {
    if (item.type === 'content_run') {
      const start = Date.parse(item.at);
      for (let i = 0; i < item.deltas.length; i++) {
        const at = i === 0 ? item.at : new Date(start + item.ms[i]!).toISOString();
        events.push({ seq: item.seq + i, turnId, at, agent: item.agent, depth: item.depth, type: 'content', delta: item.deltas[i]! });
      }
    } else {
      events.push((item.turnId === undefined ? { ...item, turnId } : item) as AgentEvent);
    }
  }
  return events;
}

function plainContent(event: AgentEvent): boolean {
  let keys = 0;
  for (const key in event) if (Object.hasOwn(event, key)) keys++;
  return keys === CONTENT_KEYS;
}
