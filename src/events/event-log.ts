import type { PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { AgentEvent } from './agent-event.js';
import { unpackEvents, type StoredItem } from './stored-events.js';

// Reads of the stored event log. A turn's events are stored in chunks (turn_events rows: seq to
// last_seq, the events in order, in the form of stored-events.ts; see event-statements.ts), which
// overlap only where a retried write stored a content run again (its repeated events are dropped here).

/** Logged events of a turn with seq in (after, upTo], oldest first. */
export async function readLog(sql: SqlClient, turnId: string, after: number, upTo = 2 ** 31 - 1): Promise<AgentEvent[]> {
  const rows = await sql.query<{ events: StoredItem[] }>(
    'SELECT events FROM turn_events WHERE turn_id = $1::uuid AND last_seq > $2 AND seq <= $3 ORDER BY seq',
    [turnId, after, upTo],
  );
  return within(
    rows.flatMap((row) => unpackEvents(turnId, row.events)),
    after,
    upTo,
  );
}

/** The logged events of several turns (seq > after, the first `limit` of each), in the order of `turnIds`. */
export async function readLogs(prisma: PrismaClient, turnIds: string[], after: number, limit: number): Promise<AgentEvent[][]> {
  // Every chunk read holds at least one event past `after`: `limit` chunks hold enough events.
  const rows = await prisma.$queryRawUnsafe<{ turn_id: string; events: unknown }[]>(
    `SELECT t.id::text AS turn_id, c.events FROM unnest($1::uuid[]) AS t(id)
     CROSS JOIN LATERAL (SELECT events FROM "turn_events" WHERE "turn_id" = t.id AND "last_seq" > $2 ORDER BY "seq" LIMIT $3) c`,
    turnIds,
    after,
    limit,
  );
  const byTurn = new Map<string, AgentEvent[]>(turnIds.map((id) => [id, []]));
  for (const row of rows) {
    const items = (typeof row.events === 'string' ? JSON.parse(row.events) : row.events) as StoredItem[];
    byTurn.get(row.turn_id)!.push(...unpackEvents(row.turn_id, items));
  }
  return turnIds.map((id) => within(byTurn.get(id)!, after).slice(0, limit));
}

/** The last `final` event of each turn that has one (a turn's outcome as its stream ended), by turn id. */
export async function finalEvents(prisma: PrismaClient, turnIds: string[]): Promise<Map<string, Extract<AgentEvent, { type: 'final' }>>> {
  if (turnIds.length === 0) return new Map();
  const rows = await prisma.$queryRawUnsafe<{ turn_id: string; event: unknown }[]>(
    `SELECT DISTINCT ON (c.turn_id) c.turn_id::text AS turn_id, e.value AS event
     FROM "turn_events" c CROSS JOIN LATERAL jsonb_array_elements(c.events) WITH ORDINALITY AS e(value, n)
     WHERE c.turn_id = ANY($1::uuid[]) AND e.value->>'type' = 'final'
     ORDER BY c.turn_id, c.seq DESC, e.n DESC`,
    turnIds,
  );
  return new Map(
    rows.map((row) => {
      const item = (typeof row.event === 'string' ? JSON.parse(row.event) : row.event) as StoredItem;
      return [row.turn_id, unpackEvents(row.turn_id, [item])[0] as Extract<AgentEvent, { type: 'final' }>];
    }),
  );
}

/**
 * The events with seq in (after, upTo], each once: a chunk's first and last may reach past the
 * range, and a content run stored again by a retried write repeats events before it.
 */
function within(events: AgentEvent[], after: number, upTo = Infinity): AgentEvent[] {
  let last = after;
  return events.filter((event) => {
    if (event.seq <= last || event.seq > upTo) return false;
    last = event.seq;
    return true;
  });
}
