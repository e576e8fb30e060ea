import { visibleTo } from '../../auth/scope.js';
import { MessageType } from '../../db/generated/enums.js';
import { builder } from '../builder.js';

export const MessageTypeEnum = builder.enumType(MessageType, { name: 'MessageType' });

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
  }),
});
