import { compareTurns, type ChangeOp, type LineChange, type ToolCallChange, type TurnComparison, type TurnOutcome } from '../../turns/compare-turns.js';
import { ForbiddenError, NotFoundError, RateLimitedError, ValidationError } from '../../errors.js';
import { encodeGlobalID, rowId } from '../../http/global-ids.js';
import { forkSession } from '../../sessions/fork.js';
import { visibleTo } from '../../auth/scope.js';
import { builder } from '../builder.js';
import { pageSize } from '../pagination.js';
import { SourceRef, UsageRef } from './events.js';
import { SessionRef } from './sessions.js';
import { SendMessagePayload, TurnRef } from './turns.js';

builder.prismaObjectFields('Session', (t) => ({
  // A fork is its owner's, and what it was forked from was visible to them: no further scoping.
  forkedFrom: t.relation('forkedFrom', {
    nullable: true,
    description: 'The session this one was forked from (forkSession, replayTurn); null once that one is deleted.',
  }),
  forks: t.relatedConnection('forks', {
    cursor: 'id',
    ...pageSize(20, 100),
    description: 'Sessions forked from this one that you can see, newest first.',
    query: (_args, ctx) => ({ where: visibleTo(ctx.viewer), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
  forkedAtMessageId: t.id({
    nullable: true,
    description: 'The last message of `forkedFrom` copied into this fork; null when forked before its first message or not a fork.',
    resolve: (session) => (session.forkedAtMessageId ? encodeGlobalID('Message', session.forkedAtMessageId) : null),
  }),
}));

const ReplayOverridesInput = builder.inputType('ReplayOverridesInput', {
  description: 'What a replay changes; anything left out is as the replayed turn had it.',
  fields: (t) => ({
    agentVersion: t.int({ required: false, description: 'A registered version of the turn’s agent.' }),
    model: t.string({ required: false, description: '`provider:model`, a bare model of the default provider, or `demo`.' }),
    temperature: t.float({ required: false, description: 'From 0 to 2.' }),
    systemPromptSuffix: t.string({ required: false, description: 'Appended to the agent’s system prompt.' }),
  }),
});

const ChangeOpEnum = builder.enumType('ChangeOp', { values: ['SAME', 'ADDED', 'REMOVED', 'CHANGED'] as const satisfies readonly ChangeOp[] });

const LineChangeRef = builder.objectRef<LineChange>('LineChange').implement({
  description: 'A line of the final answer: in both turns (SAME), only in b (ADDED) or only in a (REMOVED).',
  fields: (t) => ({ op: t.expose('op', { type: ChangeOpEnum }), text: t.exposeString('text') }),
});

const ToolCallChangeRef = builder.objectRef<ToolCallChange>('ToolCallChange').implement({
  description: 'A tool call of a, b or both: calls are paired in order by tool name; a pair whose arguments or result differ is CHANGED.',
  fields: (t) => ({
    op: t.expose('op', { type: ChangeOpEnum }),
    name: t.exposeString('name'),
    changedArguments: t.exposeStringList('changedArguments', { description: 'Argument keys whose values differ.' }),
    argumentsA: t.expose('argumentsA', { type: 'JSON', nullable: true }),
    argumentsB: t.expose('argumentsB', { type: 'JSON', nullable: true }),
    resultChanged: t.exposeBoolean('resultChanged'),
    resultA: t.expose('resultA', { type: 'JSON', nullable: true }),
    resultB: t.expose('resultB', { type: 'JSON', nullable: true }),
  }),
});

const TurnSideRef = builder.objectRef<TurnOutcome>('ComparedTurn').implement({
  description: 'One side of a comparison.',
  fields: (t) => ({
    turn: t.field({ type: TurnRef, resolve: (side) => side.turn }),
    text: t.exposeString('text', { nullable: true, description: 'The final answer.' }),
    usage: t.field({ type: UsageRef, resolve: (side) => side.usage }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true, description: 'From start to end; null while the turn runs.' }),
    modelCalls: t.int({ resolve: (side) => side.models.length }),
    models: t.exposeStringList('models', { description: 'The model of each model call, in order.' }),
  }),
});

const SourcesChangeRef = builder.objectRef<Pick<TurnComparison, 'sourcesAdded' | 'sourcesRemoved'>>('SourcesChange').implement({
  fields: (t) => ({
    added: t.field({ type: [SourceRef], description: 'Cited by b, not by a (by key).', resolve: (c) => c.sourcesAdded }),
    removed: t.field({ type: [SourceRef], description: 'Cited by a, not by b.', resolve: (c) => c.sourcesRemoved }),
  }),
});

export const TurnComparisonRef = builder.objectRef<TurnComparison>('TurnComparison').implement({
  description: 'How turn b differs from turn a.',
  fields: (t) => ({
    a: t.field({ type: TurnSideRef, resolve: (c) => c.a }),
    b: t.field({ type: TurnSideRef, resolve: (c) => c.b }),
    textChanged: t.exposeBoolean('textChanged'),
    text: t.field({ type: [LineChangeRef], description: 'Line diff of the final answers.', resolve: (c) => c.text }),
    toolCalls: t.field({ type: [ToolCallChangeRef], resolve: (c) => c.toolCalls }),
    sources: t.field({ type: SourcesChangeRef, resolve: (c) => c }),
  }),
});

builder.queryField('compareTurns', (t) =>
  t.field({
    type: TurnComparisonRef,
    description: 'How turn b (e.g. a replay) differs from turn a: answer, tool calls, sources, usage, latency, model calls. Both must be visible.',
    args: { a: t.arg.id(), b: t.arg.id() },
    resolve: (_root, args, ctx) => compareTurns(ctx, ctx.viewer, rowId(String(args.a), 'Turn', 'a'), rowId(String(args.b), 'Turn', 'b')),
  }),
);

builder.mutationFields((t) => ({
  forkSession: t.field({
    type: SessionRef,
    description: 'Copies a session up to and including one of its messages into a new session of yours that records where it came from.',
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], dataField: { name: 'session' } },
    args: { sessionId: t.arg.id(), atMessageId: t.arg.id() },
    resolve: (_root, args, ctx) =>
      forkSession(ctx, ctx.viewer, rowId(String(args.sessionId), 'Session', 'sessionId'), rowId(String(args.atMessageId), 'Message', 'atMessageId')),
  }),
  replayTurn: t.field({
    type: SendMessagePayload,
    description:
      'Forks the turn’s session at the message before its user message and asks that message again there with the overrides; follow the new turn with turnEvents, then compare the two with compareTurns.',
    errors: { types: [ValidationError, NotFoundError, ForbiddenError, RateLimitedError], directResult: true },
    args: { turnId: t.arg.id(), overrides: t.arg({ type: ReplayOverridesInput, required: false }) },
    resolve: (_root, args, ctx) => ctx.turns.replayTurn(ctx.viewer, rowId(String(args.turnId), 'Turn', 'turnId'), args.overrides),
  }),
}));
