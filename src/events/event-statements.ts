import { Prisma } from '../db/generated/client.js';
import type { AgentEvent } from './agent-event.js';
import { packEvents, type StoredItem } from './stored-events.js';

// The statements of the event writer: events (one JSON parameter for any number of them, much
// cheaper to bind than five per row, above all on PGlite), the model calls that ride with them,
// and a commit's writes. A write stores one row per turn (a chunk of its consecutive events), and
// events already stored (a retried write after one that did commit) are not stored again.

/**
 * A turn's own writes made in ONE statement with the events they go with (a turn's outcome, on the
 * path of every turn): no transaction, no round trips beyond the one.
 */
export interface TurnWrites {
  /** What the statement may write only when true (the turn's fence): otherwise it writes nothing, events included. */
  allowed: Prisma.Sql;
  /** Data-modifying CTEs, each followed by a comma, that write only when `(SELECT ok FROM allowed)`. */
  ctes: Prisma.Sql;
  /** The SET list of the UPDATE of the turn's row (its last_seq is set with it). */
  set: Prisma.Sql;
  /** What the commit fails with when `allowed` did not hold. */
  refused(): Error;
}

/**
 * A model call's llm_calls row, written with the next events of its turn (in the same statement)
 * rather than on its own: its columns by name, values as the statement binds them.
 */
export interface ModelCallRow {
  turnId: string;
  llmCall: {
    turn_id: string;
    session_id: string;
    provider: string;
    model: string;
    iteration: number;
    input_tokens: number;
    output_tokens: number;
    /** The provider reported no usage (a cut-short stream): the counts are the tokenizer's estimate. */
    usage_estimated: boolean;
    latency_ms: number;
    finish_reason: string | null;
    error: string | null;
    request: string | null;
    /** The history cut out of `request` (engine/request-history.ts). */
    request_history: object | null;
    tenant_id: string;
    user_id: string | null;
    /** When the call ended (ISO). */
    created_at: string;
  };
}

/** A turn's consecutive events of one write: one row of turn_events. */
interface Chunk {
  turnId: string;
  seq: number;
  lastSeq: number;
  at: string;
  events: StoredItem[];
}

/** The events of a write (each turn's in seq order, turns possibly interleaved) as one chunk per turn. */
function chunksOf(events: AgentEvent[]): Chunk[] {
  const byTurn = new Map<string, AgentEvent[]>();
  for (const event of events) {
    const own = byTurn.get(event.turnId);
    if (own) own.push(event);
    else byTurn.set(event.turnId, [event]);
  }
  return [...byTurn].map(([turnId, own]) => ({ turnId, seq: own[0]!.seq, lastSeq: own.at(-1)!.seq, at: own[0]!.at, events: packEvents(own) }));
}

/** Events and model calls of any turns in one statement, outside any transaction. */
export function rowsStatement(events: AgentEvent[], calls: ModelCallRow[]): Prisma.Sql {
  return Prisma.sql`WITH ${storeCalls(calls, Prisma.sql`TRUE`)} ch AS MATERIALIZED (${chunkRows(chunksOf(events))})
    ${storeChunks(Prisma.sql`TRUE`)}`;
}

/**
 * A commit as one statement: the turn's writes, its events (and copies in its ancestors' logs),
 * its model calls, and every touched turn's last seq; the turn's own row takes its last seq in the
 * same UPDATE as its writes (a statement may update a row once). Returns a row only when written.
 */
export function commitStatement(turnId: string, writes: TurnWrites, events: AgentEvent[], calls: ModelCallRow[]): Prisma.Sql {
  const ok = Prisma.sql`(SELECT ok FROM allowed)`;
  const chunks = chunksOf(events);
  const ownLastSeq = chunks.find((chunk) => chunk.turnId === turnId)?.lastSeq ?? 0;
  // Copies in ancestors' logs (a child turn's events) only: a top-level turn's outcome has none.
  const others = chunks.some((chunk) => chunk.turnId !== turnId)
    ? Prisma.sql`, others AS (
      UPDATE turns t SET last_seq = GREATEST(t.last_seq, ch.last_seq)
      FROM ch WHERE t.id = ch.turn_id AND ch.turn_id <> ${turnId}::uuid AND ${ok}
    )`
    : Prisma.empty;
  return Prisma.sql`
    WITH allowed AS MATERIALIZED (SELECT ${writes.allowed} AS ok),
    ch AS MATERIALIZED (${chunkRows(chunks)}),
    ${writes.ctes}
    ${storeCalls(calls, ok)}
    stored AS (${storeChunks(ok)})${others}
    UPDATE turns SET ${writes.set}, last_seq = GREATEST(last_seq, ${ownLastSeq}::int)
    WHERE id = ${turnId}::uuid AND ${ok}
    RETURNING 1 AS written`;
}

/** The events of a commit and the last seq of their turns, in a transaction. */
export async function insertEventsIn(tx: Prisma.TransactionClient, events: AgentEvent[], calls: ModelCallRow[]): Promise<void> {
  if (events.length === 0 && calls.length === 0) return;
  await tx.$executeRaw`
    WITH ch AS MATERIALIZED (${chunkRows(chunksOf(events))}),
    ${storeCalls(calls, Prisma.sql`TRUE`)}
    stored AS (${storeChunks(Prisma.sql`TRUE`)})
    UPDATE turns t SET last_seq = GREATEST(t.last_seq, ch.last_seq)
    FROM ch WHERE t.id = ch.turn_id`;
}

/** Chunks as rows `(turn_id, seq, last_seq, events, at)` of one JSON parameter. */
const chunkRows = (chunks: Chunk[]) =>
  Prisma.sql`SELECT (c->>'turnId')::uuid AS turn_id, (c->>'seq')::int AS seq, (c->>'lastSeq')::int AS last_seq, c->'events' AS events,
    (c->>'at')::timestamptz AS at FROM jsonb_array_elements(${JSON.stringify(chunks)}::jsonb) AS c`;

/**
 * A CTE (followed by a comma) storing model calls' rows when `when` holds; nothing without calls. The
 * request bodies (a long session's carry its whole history) are a text[] parameter of their own:
 * inside the rows' JSON they would be escaped, then parsed into jsonb and out again.
 */
const storeCalls = (calls: ModelCallRow[], when: Prisma.Sql) =>
  calls.length === 0
    ? Prisma.empty
    : Prisma.sql`calls AS (
        INSERT INTO llm_calls (turn_id, session_id, provider, model, iteration, input_tokens, output_tokens, usage_estimated, latency_ms, finish_reason, error, request, request_history, tenant_id, user_id, created_at)
        SELECT c.turn_id, c.session_id, c.provider, c.model, c.iteration, c.input_tokens, c.output_tokens, c.usage_estimated, c.latency_ms, c.finish_reason, c.error, c.request, c.request_history, c.tenant_id, c.user_id, c.created_at
        FROM ROWS FROM (
          jsonb_to_recordset(${JSON.stringify(calls.map(({ llmCall: { request: _, ...columns } }) => columns))}::jsonb) AS (turn_id uuid, session_id uuid, provider text,
            model text, iteration int, input_tokens int, output_tokens int, usage_estimated boolean, latency_ms int, finish_reason text, error text, request_history jsonb,
            tenant_id text, user_id text, created_at timestamptz),
          unnest(${calls.map((c) => c.llmCall.request)}::text[])
        ) AS c(turn_id, session_id, provider, model, iteration, input_tokens, output_tokens, usage_estimated, latency_ms, finish_reason, error, request_history, tenant_id, user_id, created_at, request)
        WHERE ${when}
      ),`;

/**
 * Stores the chunks of `ch` when `when` holds, each without the items whose events its turn has all
 * stored already: a write retried after one that did commit (a connection lost after the commit) may
 * carry them along with newer ones. A content run that reaches past the stored seq is kept whole;
 * reading drops the events it repeats (event-log.ts). A turn's chunks never overlap but for such a
 * run, so its last chunk holds its last stored seq.
 */
const storeChunks = (when: Prisma.Sql) => Prisma.sql`
  INSERT INTO turn_events (turn_id, seq, last_seq, events, created_at)
  SELECT ch.turn_id, GREATEST(ch.seq, prior.last_seq + 1), ch.last_seq,
         CASE WHEN prior.last_seq >= ch.seq
              THEN jsonb_path_query_array(ch.events, '$[*] ? (@.seq > $stored || @.seq + @.deltas.size() > $stored + 1)', jsonb_build_object('stored', prior.last_seq))
              ELSE ch.events END,
         ch.at
  FROM ch LEFT JOIN LATERAL (SELECT x.last_seq FROM turn_events x WHERE x.turn_id = ch.turn_id ORDER BY x.seq DESC LIMIT 1) AS prior ON TRUE
  WHERE (prior.last_seq IS NULL OR prior.last_seq < ch.last_seq) AND ${when}
  ON CONFLICT (turn_id, seq) DO NOTHING`;
