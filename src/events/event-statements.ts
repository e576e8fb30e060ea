import { Prisma } from '../db/generated/client.js';
import type { AgentEvent } from './agent-event.js';

// The statements of the event writer: events (one JSON parameter for any number of them, much
// cheaper to bind than five per row, above all on PGlite), the model calls that ride with them,
// and a commit's writes. A row already stored (a retried write) is left as it was.

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
    tenant_id: string;
    user_id: string | null;
    /** When the call ended (ISO). */
    created_at: string;
  };
}

/** Events and model calls of any turns in one statement, outside any transaction. */
export function rowsStatement(events: AgentEvent[], calls: ModelCallRow[]): Prisma.Sql {
  return Prisma.sql`WITH ${storeCalls(calls, Prisma.sql`TRUE`)} ev AS MATERIALIZED (${eventRows(JSON.stringify(events))})
    ${storeEvents(Prisma.sql`TRUE`)}`;
}

/**
 * A commit as one statement: the turn's writes, its events (and copies in its ancestors' logs),
 * its model calls, and every touched turn's last seq; the turn's own row takes its last seq in the
 * same UPDATE as its writes (a statement may update a row once). Returns a row only when written.
 */
export function commitStatement(turnId: string, writes: TurnWrites, events: AgentEvent[], calls: ModelCallRow[]): Prisma.Sql {
  const ok = Prisma.sql`(SELECT ok FROM allowed)`;
  // Copies in ancestors' logs (a child turn's events) only: a top-level turn's outcome has none.
  const others = events.some((e) => e.turnId !== turnId)
    ? Prisma.sql`, others AS (
      UPDATE turns t SET last_seq = GREATEST(t.last_seq, m.seq)
      FROM (SELECT turn_id, max(seq) AS seq FROM ev WHERE turn_id <> ${turnId}::uuid GROUP BY 1) AS m
      WHERE t.id = m.turn_id AND ${ok}
    )`
    : Prisma.empty;
  return Prisma.sql`
    WITH allowed AS MATERIALIZED (SELECT ${writes.allowed} AS ok),
    ev AS MATERIALIZED (${eventRows(JSON.stringify(events))}),
    ${writes.ctes}
    ${storeCalls(calls, ok)}
    stored AS (${storeEvents(ok)})${others}
    UPDATE turns SET ${writes.set}, last_seq = GREATEST(last_seq, COALESCE((SELECT max(seq) FROM ev WHERE turn_id = ${turnId}::uuid), 0))
    WHERE id = ${turnId}::uuid AND ${ok}
    RETURNING 1 AS written`;
}

/**
 * The events of a commit and the last seq of their turns, in a transaction: one JSON parameter for
 * any number of events (much cheaper to bind than five per row, above all on PGlite). A row already
 * stored (a retried write) is left as it was.
 */
export async function insertEventsIn(tx: Prisma.TransactionClient, events: AgentEvent[], calls: ModelCallRow[]): Promise<void> {
  if (events.length === 0 && calls.length === 0) return;
  await tx.$executeRaw`
    WITH ev AS MATERIALIZED (${eventRows(JSON.stringify(events))}),
    ${storeCalls(calls, Prisma.sql`TRUE`)}
    stored AS (${storeEvents(Prisma.sql`TRUE`)})
    UPDATE turns t SET last_seq = GREATEST(t.last_seq, m.seq)
    FROM (SELECT turn_id, max(seq) AS seq FROM ev GROUP BY 1) AS m
    WHERE t.id = m.turn_id`;
}

/** The events of a JSON array as rows `(e, turn_id, seq)`. */
const eventRows = (json: string) =>
  Prisma.sql`SELECT e, (e->>'turnId')::uuid AS turn_id, (e->>'seq')::int AS seq FROM jsonb_array_elements(${json}::jsonb) AS e`;

/** A CTE (followed by a comma) storing model calls' rows when `when` holds; nothing without calls. */
const storeCalls = (calls: ModelCallRow[], when: Prisma.Sql) =>
  calls.length === 0
    ? Prisma.empty
    : Prisma.sql`calls AS (
        INSERT INTO llm_calls (turn_id, session_id, provider, model, iteration, input_tokens, output_tokens, usage_estimated, latency_ms, finish_reason, error, request, tenant_id, user_id, created_at)
        SELECT c.turn_id, c.session_id, c.provider, c.model, c.iteration, c.input_tokens, c.output_tokens, c.usage_estimated, c.latency_ms, c.finish_reason, c.error, c.request, c.tenant_id, c.user_id, c.created_at
        FROM jsonb_to_recordset(${JSON.stringify(calls.map((c) => c.llmCall))}::jsonb) AS c(turn_id uuid, session_id uuid, provider text, model text, iteration int,
             input_tokens int, output_tokens int, usage_estimated boolean, latency_ms int, finish_reason text, error text, request text, tenant_id text, user_id text, created_at timestamptz)
        WHERE ${when}
      ),`;

/** Stores the rows of `ev` when `when` holds. */
const storeEvents = (when: Prisma.Sql) => Prisma.sql`
  INSERT INTO turn_events (turn_id, seq, type, payload, created_at)
  SELECT turn_id, seq, e->>'type', e, (e->>'at')::timestamptz FROM ev WHERE ${when}
  ON CONFLICT (turn_id, seq) DO NOTHING`;
