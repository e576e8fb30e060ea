import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { isVisibleTo, ownedBy, requireIdentity, visibleTo } from '../auth/scope.js';
import type { Message, Prisma, PrismaClient, Session } from '../db/generated/client.js';
import { NotFoundError, SessionBusyError } from '../errors.js';
import { appendMessages } from './messages.js';
import type { SqlClient } from '../db/sql-client.js';
import { isUniqueViolation } from '../db/sql-state.js';
import { storable } from '../events/storable.js';
import type { RemPubSub } from '../events/pubsub.js';
import { ACTIVE_STATUSES } from '../events/turn-status.js';
import { parseInput } from '../validation.js';

export interface SessionDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
}

/** The name of a session created without one; its first message names it (see sessionTitle). */
export const UNNAMED_SESSION = 'New session';

/** A session's name taken from its first message: the first line, whitespace collapsed, 60 characters at most. */
export function sessionTitle(content: string): string {
  const line = content.trim().split('\n', 1)[0]!.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 59).trimEnd()}…` : line || UNNAMED_SESSION;
}

const sessionName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const metadata = z.record(z.string(), z.unknown()).refine((m) => JSON.stringify(m).length <= 16_384, 'must be at most 16 KiB of JSON');

const createInput = z.object({
  name: sessionName.optional(),
  agent: z.string().trim().min(1).max(64).optional(),
  routing: z.boolean().optional(),
  metadata: metadata.optional(),
});

export type CreateSessionInput = z.input<typeof createInput>;

export async function createSession(deps: SessionDeps, ctx: AgentContext, input: CreateSessionInput): Promise<Session> {
  const data = parseInput(createInput, input, ['input']);
  requireIdentity(ctx, 'create sessions');
  return deps.prisma.session.create({
    data: {
      name: data.name ?? UNNAMED_SESSION,
      agent: data.agent ?? null,
      routing: data.routing ?? false,
      metadata: (data.metadata ?? {}) as Prisma.InputJsonObject,
      isEval: ctx.isEval,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
    },
  });
}

/**
 * A session the caller can see; another user's session is NOT_FOUND, never FORBIDDEN. One direct
 * statement: `session(id)` is the most common read of a chat client.
 */
export async function getSession(deps: { sql: SqlClient }, ctx: AgentContext, id: string): Promise<Session> {
  // By primary key alone (checked against the caller after): with the owner's columns in the
  // condition, PGlite (no autovacuum, so an empty table's statistics) planned a scan of every session of the caller.
  const [session] = await deps.sql.query<Session>(`SELECT ${SESSION_COLUMNS} FROM "sessions" WHERE "id" = $1::uuid`, [id]);
  if (!session || !isVisibleTo(ctx, session)) throw new NotFoundError('Session');
  return session;
}

/** Every column of a session row, named as Prisma names its fields (a test compares the two reads). */
const SESSION_COLUMNS = [
  '"id"::text AS "id"',
  '"name"',
  '"tenant_id" AS "tenantId"',
  '"user_id" AS "userId"',
  '"agent"',
  '"routing"',
  '"active_agent" AS "activeAgent"',
  '"metadata"',
  '"is_eval" AS "isEval"',
  '"dreamed_seq" AS "dreamedSeq"',
  '"forked_from_id"::text AS "forkedFromId"',
  '"forked_at_message_id"::text AS "forkedAtMessageId"',
  '"document_id"::text AS "documentId"',
  '"corpus_id"::text AS "corpusId"',
  '"created_at" AS "createdAt"',
  '"updated_at" AS "updatedAt"',
].join(', ');

export async function renameSession(deps: SessionDeps, ctx: AgentContext, id: string, name: string): Promise<Session> {
  const newName = parseInput(sessionName, name, ['name']);
  const owned = await deps.prisma.session.updateMany({ where: { id, ...ownedBy(ctx) }, data: { name: newName } });
  if (owned.count === 0) throw new NotFoundError('Session');
  const session = await deps.prisma.session.findUniqueOrThrow({ where: { id } });
  deps.pubsub.publish('session:updated', id, { session, deleted: false });
  return session;
}

export async function deleteSession(deps: SessionDeps, ctx: AgentContext, id: string): Promise<Session> {
  const session = await deps.prisma.session.findFirst({ where: { id, ...ownedBy(ctx) } });
  if (!session) throw new NotFoundError('Session');
  await deps.prisma.session.delete({ where: { id } });
  deps.pubsub.publish('session:updated', id, { session, deleted: true });
  deps.pubsub.publish('session:deleted', { sessionId: id });
  return session;
}

const filterInput = z.object({
  nameContains: z.string().max(200).nullish(),
  agent: z.string().max(64).nullish(),
  updatedAfter: z.date().nullish(),
  includeEval: z.boolean().nullish(),
});

export type SessionFilter = z.input<typeof filterInput>;

/** Prisma `where` for the caller's sessions matching a filter (used by the sessions connection); eval sessions only on request. */
export function sessionsWhere(ctx: AgentContext, filter: SessionFilter | null | undefined): Prisma.SessionWhereInput {
  const f = parseInput(filterInput, filter ?? {}, ['filter']);
  return {
    ...visibleTo(ctx),
    // Sessions of evaluation runs (X-Is-Eval) would crowd a person's list.
    ...(f.includeEval ? {} : { isEval: false }),
    ...(f.nameContains ? { name: { contains: f.nameContains, mode: 'insensitive' as const } } : {}),
    ...(f.agent ? { agent: f.agent } : {}),
    ...(f.updatedAfter ? { updatedAt: { gt: f.updatedAfter } } : {}),
  };
}

const appendInput = z
  .array(
    z.object({
      type: z.enum(['user', 'assistant', 'system']),
      content: z.string().min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters'),
      agentName: z.string().trim().min(1).max(64).nullish(),
      metadata: metadata.nullish(),
    }),
  )
  .min(1, 'must not be empty')
  .max(100, 'at most 100 messages at once');

export type AppendMessageInput = z.input<typeof appendInput>[number];

/**
 * Adds user, assistant or system messages to a session without running an agent (OpenContracts'
 * message store): imported conversations, or answers produced elsewhere. They are history for the
 * session's next turns. Refused while a turn runs in the session (its rows come next).
 */
export async function appendSessionMessages(deps: SessionDeps, ctx: AgentContext, sessionId: string, raw: AppendMessageInput[]): Promise<Message[]> {
  const rows = parseInput(appendInput, raw, ['messages']);
  const session = await deps.prisma.session.findFirst({ where: { id: sessionId, ...ownedBy(ctx) } });
  if (!session) throw new NotFoundError('Session');
  const active = await deps.prisma.turn.findFirst({ where: { sessionId, status: { in: ACTIVE_STATUSES } }, select: { id: true } });
  if (active) throw new SessionBusyError(sessionId, active.id);
  let stored: Message[];
  try {
    stored = await appendMessages(
      deps.prisma,
      session,
      rows.map((row) => ({
        type: row.type,
        content: storable(row.content),
        agentName: row.agentName ?? null,
        metadata: storable(row.metadata ?? {}) as Prisma.JsonObject,
        isEval: ctx.isEval,
      })),
    );
  } catch (error) {
    // A turn started meanwhile and took the next position.
    if (isUniqueViolation(error)) throw new SessionBusyError(sessionId);
    throw error;
  }
  const touched = await deps.prisma.session.update({ where: { id: sessionId }, data: { updatedAt: new Date() } });
  deps.pubsub.publish('session:updated', sessionId, { session: touched, deleted: false });
  return stored;
}

/**
 * The session a chat client names by an id of its own (the AI SDK's `useChat` id): a session id
 * (UUID or GraphQL ID) is that session; any other id names the caller's session that carries it
 * as `metadata.chat_id`, created on first use.
 */
export async function chatSession(deps: SessionDeps & { sql: SqlClient }, ctx: AgentContext, chatId: string, sessionId: string | null): Promise<Session> {
  if (sessionId) return getSession(deps, ctx, sessionId);
  requireIdentity(ctx, 'store messages');
  const found = await deps.prisma.session.findFirst({ where: { ...ownedBy(ctx), metadata: { path: ['chat_id'], equals: chatId } } });
  return found ?? createSession(deps, ctx, { metadata: { chat_id: chatId } });
}
