import { visibleTo } from '../../auth/scope.js';
import { MessageType } from '../../db/generated/enums.js';
import type { Message } from '../../db/generated/client.js';
import { NotFoundError, SessionBusyError, ValidationError } from '../../errors.js';
import { appendSessionMessages } from '../../sessions/sessions.js';
import { builder } from '../builder.js';
import type { Source } from '../../events/agent-event.js';
import { SourceRef } from './events.js';
import { rowId } from '../../http/global-ids.js';

const MessageTypeEnum = builder.enumType(MessageType, { name: 'MessageType' });

export const MessageRef = builder.prismaNode('Message', {
  id: { field: 'id' },
  // Loaded by node(id) too: scoped like every read, and null (not an error) when not visible.
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: 'Position within the session, from 1.' }),
    type: t.expose('type', { type: MessageTypeEnum }),
    content: t.exposeString('content', { nullable: true }),
    toolCalls: t.expose('toolCalls', { type: 'JSON', nullable: true }),
    toolCallId: t.exposeString('toolCallId', { nullable: true }),
    toolName: t.exposeString('toolName', { nullable: true }),
    inputTokens: t.exposeInt('inputTokens', { nullable: true }),
    outputTokens: t.exposeInt('outputTokens', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    agentName: t.exposeString('agentName', { nullable: true }),
    traceId: t.exposeString('traceId', { nullable: true }),
    spanId: t.exposeString('spanId', { nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    isEval: t.exposeBoolean('isEval', { description: 'Written by an evaluation run (X-Is-Eval).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    session: t.relation('session'),
    sources: t.field({
      type: [SourceRef],
      description: 'An assistant message’s citations, as its turn found them.',
      resolve: (message) => (message.metadata as { sources?: Source[] } | null)?.sources ?? [],
    }),
  }),
});

const AppendMessageInput = builder.inputType('AppendMessageInput', {
  fields: (t) => ({
    type: t.field({ type: builder.enumType('AppendMessageType', { values: ['user', 'assistant', 'system'] as const }) }),
    content: t.string(),
    agentName: t.string({ required: false, description: 'For assistant messages: the agent that answered.' }),
    metadata: t.field({ type: 'JSON', required: false }),
  }),
});

const AppendMessagesPayload = builder.objectRef<Message[]>('AppendMessagesPayload').implement({
  fields: (t) => ({ messages: t.field({ type: [MessageRef], resolve: (rows) => rows }) }),
});

builder.mutationField('appendMessages', (t) =>
  t.field({
    type: AppendMessagesPayload,
    description: 'Adds messages to one of your sessions without running an agent; they are history for its next turns. SESSION_BUSY while a turn runs there.',
    errors: { types: [ValidationError, NotFoundError, SessionBusyError], directResult: true },
    args: { sessionId: t.arg.id(), messages: t.arg({ type: [AppendMessageInput] }) },
    resolve: (_root, args, ctx) =>
      appendSessionMessages(
        ctx,
        ctx.viewer,
        rowId(String(args.sessionId), 'Session', 'sessionId'),
        args.messages.map((m) => ({
          type: m.type,
          content: m.content,
          agentName: m.agentName,
          metadata: m.metadata as Record<string, unknown> | null | undefined,
        })),
      ),
  }),
);
