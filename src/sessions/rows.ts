import { randomUUID } from 'node:crypto';
import type { AgentContext } from '../auth/agent-context.js';
import { Prisma, type Message, type Session } from '../db/generated/client.js';
import { storable } from '../events/storable.js';

// The session and message rows' one author for direct statements: each row is built here as the
// Prisma model types it, and the statements name its columns as the Prisma model lists its fields
// (a test compares them with the database).

/** A Prisma field's column: its name in snake_case (every @map of the schema says so). */
export function columnOf(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Every column of the messages table, in the Prisma model's order. */
export const MESSAGE_COLUMNS = Object.values(Prisma.MessageScalarFieldEnum).map(columnOf);

/** A row keyed by its columns, as jsonb_populate_record reads it. */
function byColumn(row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(storable(row)).map(([field, value]) => [columnOf(field), value]));
}

/** A session the start creates: the caller's, named after the first message. */
export function newSession(ctx: AgentContext, asked: { name: string; agent: string | null }, now: Date): Session {
  return {
    id: randomUUID(),
    name: asked.name,
    tenantId: ctx.tenantId,
    userId: ctx.userId,
    agent: asked.agent,
    metadata: {},
    isEval: ctx.isEval,
    routing: false,
    activeAgent: null,
    dreamedSeq: 0,
    forkedFromId: null,
    forkedAtMessageId: null,
    documentId: null,
    corpusId: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A message row before its position is known: `fields` over a row of nulls in `session`, written by `turn`. */
export type NewMessageRow = Omit<Message, 'seq'>;

export function messageRow(
  at: {
    session: Pick<Session, 'id' | 'tenantId' | 'userId'>;
    turnId: string | null;
    isEval: boolean;
    trace?: { traceId: string | null; spanId: string | null };
    now: Date;
  },
  fields: Pick<Message, 'type' | 'content'> & Partial<Omit<Message, 'seq'>>,
): NewMessageRow {
  return {
    id: randomUUID(),
    sessionId: at.session.id,
    toolCalls: null,
    toolCallId: null,
    toolName: null,
    turnId: at.turnId,
    inputTokens: null,
    outputTokens: null,
    latencyMs: null,
    model: null,
    agentName: null,
    traceId: at.trace?.traceId ?? null,
    spanId: at.trace?.spanId ?? null,
    metadata: {},
    isEval: at.isEval,
    tenantId: at.session.tenantId,
    userId: at.session.userId,
    createdAt: at.now,
    ...fields,
  };
}

/** A CTE `name` that inserts `session` when `when` holds. */
export function insertSessionCte(name: string, session: Session, when: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`${Prisma.raw(name)} AS (
    INSERT INTO sessions SELECT * FROM jsonb_populate_record(NULL::sessions, ${JSON.stringify(byColumn(session))}::jsonb) WHERE ${when}
  )`;
}

/**
 * A CTE `name` that appends `rows` to their session after its last message, in order, when `when`
 * holds, returning their `id` and `seq`. The (session_id, seq) unique index makes a concurrent append fail
 * rather than interleave. Every CTE of the statement sees the messages as they were before it.
 */
export function insertMessagesCte(name: string, sessionId: string, rows: NewMessageRow[], when: Prisma.Sql): Prisma.Sql {
  const values = MESSAGE_COLUMNS.map((column) => (column === 'seq' ? Prisma.raw('last.seq + m.ordinality') : Prisma.raw(`m.${column}`)));
  return Prisma.sql`${Prisma.raw(name)} AS (
    INSERT INTO messages (${Prisma.raw(MESSAGE_COLUMNS.join(', '))})
    SELECT ${Prisma.join(values)}
    FROM (SELECT COALESCE(max(seq), 0) AS seq FROM messages WHERE session_id = ${sessionId}::uuid) AS last,
         jsonb_populate_recordset(NULL::messages, ${JSON.stringify(rows.map(byColumn))}::jsonb) WITH ORDINALITY AS m
    WHERE ${when}
    RETURNING id, seq
  )`;
}

/**
 * Copies a session's messages up to `uptoSeq` into another session of `owner`, at the same
 * positions: every column but the row's identity, its owner and its turn (the copy belongs to no turn).
 */
export function copyMessages(from: string, to: string, uptoSeq: number, owner: Pick<Session, 'tenantId' | 'userId'>): Prisma.Sql {
  const given: Record<string, Prisma.Sql> = {
    id: Prisma.sql`gen_random_uuid()`,
    session_id: Prisma.sql`${to}::uuid`,
    turn_id: Prisma.sql`NULL`,
    tenant_id: Prisma.sql`${owner.tenantId}`,
    user_id: Prisma.sql`${owner.userId}`,
  };
  const values = MESSAGE_COLUMNS.map((column) => given[column] ?? Prisma.raw(column));
  return Prisma.sql`INSERT INTO messages (${Prisma.raw(MESSAGE_COLUMNS.join(', '))})
    SELECT ${Prisma.join(values)} FROM messages WHERE session_id = ${from}::uuid AND seq <= ${uptoSeq}`;
}
