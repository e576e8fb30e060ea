import { randomUUID } from 'node:crypto';
import type { AgentContext } from '../auth/agent-context.js';
import type { Message, Prisma, Session, Turn } from '../db/generated/client.js';

// The rows a turn's start writes, as the store returns them without reading them back.

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

/** The user's message the start stores, at the seq the statement gave it. */
export function newUserMessage(row: {
  id: string;
  session: Session;
  turn: Pick<Turn, 'id' | 'isEval'>;
  seq: number;
  content: string;
  metadata: Record<string, unknown>;
  now: Date;
}): Message {
  return {
    id: row.id,
    sessionId: row.session.id,
    seq: row.seq,
    type: 'user',
    content: row.content,
    toolCalls: null,
    toolCallId: null,
    toolName: null,
    turnId: row.turn.id,
    inputTokens: null,
    outputTokens: null,
    latencyMs: null,
    model: null,
    agentName: null,
    traceId: null,
    spanId: null,
    metadata: row.metadata as Prisma.JsonObject,
    isEval: row.turn.isEval,
    tenantId: row.session.tenantId,
    userId: row.session.userId,
    createdAt: row.now,
  };
}
