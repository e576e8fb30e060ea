import type { UsageTotals } from '../../events/agent-event.js';
import { readLogs } from '../../events/event-log.js';
import { turnEventStream } from '../../events/turn-events.js';
import { sessionEventStream } from '../../events/session-events.js';
import { visibleTo } from '../../auth/scope.js';
import { ForbiddenError, NotFoundError, RateLimitedError, SessionBusyError, ValidationError } from '../../errors.js';
import type { SendMessageInput as SendInput } from '../../turns/send-input.js';
import type { SendMessageOutcome } from '../../turns/turn-service.js';
import { builder } from '../builder.js';
import { rowId, sessionIdOf } from '../../http/global-ids.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { LlmCall } from '../../db/generated/client.js';
import type { SqlClient } from '../../db/sql-client.js';
import { requestBody } from '../../engine/request-history.js';
import { pageSize } from '../pagination.js';
import { AgentEventUnion, UsageRef } from './events.js';
import { MessageRef } from './messages.js';
import { SessionRef } from './sessions.js';
import { TurnStatusEnum } from './turn-status.js';

export const TurnRef = builder.prismaNode('Turn', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  description: 'One run of an agent on a message (or, for child turns, on a delegated request).',
  fields: (t) => ({
    session: t.relation('session'),
    agent: t.exposeString('agent'),
    agentVersion: t.exposeInt('agentVersion', { nullable: true, description: 'Registry version; null for built-in agents.' }),
    model: t.exposeString('model', { nullable: true }),
    status: t.expose('status', { type: TurnStatusEnum }),
    depth: t.exposeInt('depth'),
    agentPath: t.exposeStringList('agentPath'),
    iterations: t.exposeInt('iterations'),
    usage: t.field({ type: UsageRef, resolve: (turn) => usageOf(turn.usage) }),
    error: t.expose('error', { type: 'JSON', nullable: true, description: '{code, message} when the turn did not complete.' }),
    toolCallsLog: t.expose('toolCallsLog', { type: 'JSON', description: 'Every tool call: tool, arguments, result, iteration.' }),
    finalMessage: t.relation('finalMessage', { nullable: true }),
    parent: t.relation('parent', { nullable: true }),
    children: t.relation('children', { query: { orderBy: { startedAt: 'asc' } } }),
    lastSeq: t.int({ description: 'Highest event seq published so far.', resolve: (turn, _args, ctx) => ctx.hub.lastSeq(turn.id) ?? turn.lastSeq }),
    traceId: t.exposeString('traceId', {
      nullable: true,
      description: 'OpenTelemetry trace of the run that last paused or ended the turn; null while tracing is off or the turn runs.',
    }),
    spanId: t.exposeString('spanId', { nullable: true, description: 'That run’s span (`invoke_agent <agent>`).' }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    isEval: t.exposeBoolean('isEval', { description: 'Started by an evaluation run (X-Is-Eval); its messages are marked too.' }),
    clientId: t.exposeString('clientId', { nullable: true, description: 'The caller’s client (X-Client-Id).' }),
    ephemeral: t.exposeBoolean('ephemeral', { description: 'Stores no messages; deleted after EPHEMERAL_TURN_RETENTION_MS once ended.' }),
    llmCalls: t.relation('llmCalls', {
      nullable: true,
      description:
        'Every model call of the turn with the exact request sent, stored when the turn ends or pauses. Null for anyone but the turn’s owner (admins for shared turns).',
      query: { orderBy: [{ createdAt: 'asc' }, { iteration: 'asc' }] },
      resolve: (query, turn, _args, ctx) => (ownsTurn(ctx.viewer, turn) ? ctx.prisma.llmCall.findMany({ ...query, where: { turnId: turn.id } }) : null),
    }),
    events: t.loadableList({
      type: AgentEventUnion,
      description: 'Logged events with seq > after, oldest first.',
      args: { after: t.arg.int({ required: false }), first: t.arg.int({ required: false }) },
      // One query for the events of every turn in the response that asks with the same arguments.
      byPath: true,
      load: (turnIds: string[], ctx, args) => readLogs(ctx.prisma, turnIds, args.after ?? 0, args.first ?? 1000),
      resolve: (turn, args) => {
        const first = args.first ?? 1000;
        if (first < 0 || first > 5000)
          throw new ValidationError('first: must be between 0 and 5000', [{ path: ['first'], message: 'must be between 0 and 5000' }]);
        return turn.id;
      },
    }),
  }),
});

builder.prismaObject('LlmCall', {
  description: 'One model request of a turn: what was sent, exactly, and what it cost.',
  fields: (t) => ({
    provider: t.exposeString('provider'),
    model: t.exposeString('model'),
    iteration: t.exposeInt('iteration', { description: 'The turn’s model call this was, from 1.' }),
    request: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The request body (messages, tools, response format, parameters) as sent; null for the offline demo model.',
      resolve: async (call, _args, ctx) => {
        const body = await sentBody(ctx.sql, call);
        return body === null ? null : JSON.parse(body);
      },
    }),
    requestText: t.string({
      nullable: true,
      description: 'The request body as the exact text the provider received.',
      resolve: (call, _args, ctx) => sentBody(ctx.sql, call),
    }),
    latencyMs: t.exposeInt('latencyMs'),
    usage: t.field({
      type: UsageRef,
      resolve: (call) => ({ inputTokens: call.inputTokens, outputTokens: call.outputTokens, requests: 1, estimated: call.usageEstimated }),
    }),
    finishReason: t.exposeString('finishReason', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

// `request` and `requestText` of one call rebuild its body once.
const sentBodies = new WeakMap<LlmCall, Promise<string | null>>();
function sentBody(sql: SqlClient, call: LlmCall): Promise<string | null> {
  let body = sentBodies.get(call);
  if (!body) sentBodies.set(call, (body = requestBody(sql, call)));
  return body;
}

function ownsTurn(viewer: AgentContext, turn: { tenantId: string; userId: string | null }): boolean {
  if (turn.tenantId !== viewer.tenantId) return false;
  return turn.userId === null ? viewer.isAdmin : turn.userId === viewer.userId;
}

function usageOf(value: unknown): UsageTotals {
  const u = (value ?? {}) as Partial<UsageTotals>;
  return { inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0, requests: u.requests ?? 0, estimated: u.estimated ?? false };
}

builder.prismaObjectField('Session', 'turns', (t) =>
  t.relatedConnection('turns', {
    cursor: 'id',
    ...pageSize(20, 100),
    query: { where: { parentId: null }, orderBy: { startedAt: 'asc' } },
    description: 'Top-level turns of the session, oldest first.',
  }),
);

const TurnOverridesInput = builder.inputType('TurnOverrides', {
  description: 'Settings for one turn, within what the agent allows.',
  fields: (t) => ({
    temperature: t.float({ required: false }),
    maxTokens: t.int({ required: false, description: 'At most the agent’s max_tokens when it sets one.' }),
    systemPromptSuffix: t.string({ required: false, description: 'Appended to the agent’s system prompt for this turn.' }),
    tools: t.stringList({ required: false, description: 'A subset of the agent’s tools; the others are not offered this turn.' }),
  }),
});

export const SendMessageInput = builder.inputType('SendMessageInput', {
  fields: (t) => ({
    sessionId: t.id({ required: false, description: 'Omit to start a new session.' }),
    content: t.string(),
    agent: t.string({ required: false, description: 'Agent name; defaults to the session’s agent, then X-Agent-Schema, then DEFAULT_AGENT.' }),
    model: t.string({ required: false, description: '`provider:model`, a bare model of the default provider, or `demo`.' }),
    metadata: t.field({ type: 'JSON', required: false }),
    overrides: t.field({ type: TurnOverridesInput, required: false }),
    ephemeral: t.boolean({
      required: false,
      description: 'Stream a turn that stores no messages (the user’s included); the turn itself is kept EPHEMERAL_TURN_RETENTION_MS after it ends.',
    }),
    document: t.id({ required: false, description: 'Bind the turn (and the session) to this Document: its tools are offered, its title told.' }),
    corpus: t.id({ required: false, description: 'Bind the turn (and the session) to this Corpus, or give the document’s corpus.' }),
    debug: t.boolean({
      required: false,
      description:
        'Stream each model call’s exact request body (a ModelRequestEvent, stored with the turn’s events) just before the call, child agents’ included.',
    }),
  }),
});

/**
 * A SendMessageInput as the turn service takes it: the global session id decoded, falling back to
 * the X-Session-Id header's session when given.
 */
export function sendInputOf(input: typeof SendMessageInput.$inferInput, headerSessionId: string | null = null): SendInput {
  return {
    sessionId: input.sessionId
      ? rowId(String(input.sessionId), 'Session', 'input.sessionId')
      : headerSessionId
        ? sessionIdOf(headerSessionId, 'X-Session-Id')
        : null,
    ephemeral: input.ephemeral,
    debug: input.debug,
    overrides: input.overrides,
    content: input.content,
    agent: input.agent,
    model: input.model,
    metadata: input.metadata as Record<string, unknown> | null | undefined,
    document: input.document ? rowId(String(input.document), 'Document', 'input.document') : null,
    corpus: input.corpus ? rowId(String(input.corpus), 'Corpus', 'input.corpus') : null,
  };
}

export const SendMessagePayload = builder.objectRef<SendMessageOutcome>('SendMessagePayload').implement({
  fields: (t) => ({
    turn: t.field({ type: TurnRef, resolve: (p) => p.turn }),
    session: t.field({ type: SessionRef, resolve: (p) => p.session }),
    userMessage: t.field({ type: MessageRef, nullable: true, description: 'Null for an ephemeral turn.', resolve: (p) => p.userMessage }),
  }),
});

builder.queryField('turn', (t) =>
  t.prismaField({
    type: 'Turn',
    nullable: true,
    args: { id: t.arg.id() },
    resolve: async (query, _root, args, ctx) => {
      const turn = await ctx.prisma.turn.findFirst({ ...query, where: { id: rowId(String(args.id), 'Turn'), ...visibleTo(ctx.viewer) } });
      if (!turn) throw new NotFoundError('Turn');
      return turn;
    },
  }),
);

builder.mutationFields((t) => ({
  sendMessage: t.field({
    type: SendMessagePayload,
    description: 'Stores the message, starts a turn and returns it at once; follow it with turnEvents.',
    errors: { types: [ValidationError, NotFoundError, SessionBusyError, ForbiddenError, RateLimitedError], directResult: true },
    args: { input: t.arg({ type: SendMessageInput }) },
    resolve: (_root, { input }, ctx) => ctx.turns.sendMessage(ctx.viewer, sendInputOf(input, ctx.viewer.sessionId)),
  }),
  regenerate: t.field({
    type: SendMessagePayload,
    description:
      'Answers a finished turn’s user message again with a new turn in the same session (same agent and model): the message is not stored twice, the model reads the conversation up to it (not the old answer), and the old answer stays stored. `userMessage` is that message.',
    errors: { types: [ValidationError, NotFoundError, SessionBusyError, ForbiddenError, RateLimitedError], directResult: true },
    args: { turnId: t.arg.id() },
    resolve: (_root, args, ctx) => ctx.turns.regenerate(ctx.viewer, rowId(String(args.turnId), 'Turn', 'turnId')),
  }),
  cancelTurn: t.field({
    type: TurnRef,
    description: 'Stops a running turn (status CANCELLED); a finished turn is returned unchanged.',
    errors: { types: [ValidationError, NotFoundError], dataField: { name: 'turn' } },
    args: { id: t.arg.id() },
    resolve: (_root, args, ctx) => ctx.turns.cancelTurn(ctx.viewer, rowId(String(args.id), 'Turn')),
  }),
}));

builder.subscriptionFields((t) => ({
  turnEvents: t.field({
    type: AgentEventUnion,
    description:
      'Events of a turn with seq > after (default 0): the logged ones, then live ones, with no gap or duplicate; completes after the final event. Resubscribe with the last seq seen to resume.',
    args: { turnId: t.arg.id(), after: t.arg.int({ required: false }) },
    subscribe: async (_root, args, ctx) => {
      const turn = await ctx.turns.getTurn(ctx.viewer, rowId(String(args.turnId), 'Turn', 'turnId'));
      return turnEventStream(ctx, turn, Math.max(0, args.after ?? 0));
    },
    resolve: (event) => event,
  }),
  sessionEvents: t.field({
    type: AgentEventUnion,
    description: 'Every event of every turn of a session (including child agents’ turns), live.',
    args: { sessionId: t.arg.id() },
    subscribe: async (_root, args, ctx) => {
      const session = await ctx.prisma.session.findFirst({
        where: { id: rowId(String(args.sessionId), 'Session', 'sessionId'), ...visibleTo(ctx.viewer) },
        select: { id: true },
      });
      if (!session) throw new NotFoundError('Session');
      return sessionEventStream(ctx.hub, session.id);
    },
    resolve: (event) => event,
  }),
}));
