import { encodeGlobalID } from '../../http/global-ids.js';
import type { AgentEvent, Source, UsageTotals } from '../../events/agent-event.js';
import type { FieldMap, ObjectRef, UnionRef } from '@pothos/core';
import { builder } from '../builder.js';

type AgentEventTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
import { TurnStatusEnum } from './turn-status.js';

type Of<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

export const UsageRef = builder.objectRef<UsageTotals>('Usage').implement({
  fields: (t) => ({
    inputTokens: t.exposeInt('inputTokens'),
    outputTokens: t.exposeInt('outputTokens'),
    totalTokens: t.int({ resolve: (u) => u.inputTokens + u.outputTokens }),
    requests: t.exposeInt('requests', { description: 'Model calls made.' }),
    estimated: t.boolean({
      description: 'Some counts are estimated with the model’s tokenizer: a model call was cut short (cancelled, failed) or its provider reported no usage.',
      resolve: (u) => u.estimated ?? false,
    }),
  }),
});

export const SourceRef = builder.objectRef<Source>('Source').implement({
  description: 'A citation: a REM hit or another reference the agent used.',
  fields: (t) => ({
    key: t.exposeString('key'),
    entityType: t.exposeString('entityType', { nullable: true }),
    title: t.exposeString('title', { nullable: true }),
    snippet: t.exposeString('snippet', { nullable: true }),
    score: t.exposeFloat('score', { nullable: true }),
    uri: t.exposeString('uri', { nullable: true }),
    page: t.int({ nullable: true, description: 'The page of a PDF chunk; null otherwise.', resolve: (s) => s.page ?? null }),
    document: t.id({
      nullable: true,
      description: 'A document’s passage: the Document.',
      resolve: (s) => (s.documentId ? encodeGlobalID('Document', s.documentId) : null),
    }),
    corpus: t.id({
      nullable: true,
      description: 'The Corpus the passage was found within.',
      resolve: (s) => (s.corpusId ? encodeGlobalID('Corpus', s.corpusId) : null),
    }),
    annotationLabel: t.string({ nullable: true, description: 'The annotation label the search was narrowed to.', resolve: (s) => s.annotationLabel ?? null }),
  }),
});

const TurnEventInterface = builder.interfaceRef<AgentEvent>('TurnEvent').implement({
  description: 'Fields every event of a turn carries.',
  fields: (t) => ({
    id: t.id({
      description: 'Stable and unique across turns (the turn and seq), so normalized caches keep events apart; not loadable with node().',
      resolve: (e) => encodeGlobalID('TurnEvent', `${e.turnId}:${e.seq}`),
    }),
    seq: t.exposeInt('seq', { description: 'Position in the turn’s log: 1, 2, 3… with no gaps.' }),
    turnId: t.id({ resolve: (e) => encodeGlobalID('Turn', e.turnId) }),
    at: t.field({ type: 'DateTime', resolve: (e) => new Date(e.at) }),
    agent: t.exposeString('agent'),
    depth: t.exposeInt('depth', { description: '0 for the top-level agent, 1 for a child it asked, …' }),
  }),
});

function eventType<T extends AgentEvent['type']>(
  name: string,
  type: T,
  fields: (t: PothosSchemaTypes.ObjectFieldBuilder<AgentEventTypes, Of<T>>) => FieldMap,
): ObjectRef<AgentEventTypes, Of<T>> {
  return builder.objectRef<Of<T>>(name).implement({
    interfaces: [TurnEventInterface],
    isTypeOf: (value) => (value as AgentEvent).type === type,
    fields,
  });
}

const ThoughtEvent = eventType('ThoughtEvent', 'thought', (t) => ({ text: t.exposeString('text') }));
const ModelRequestEvent = eventType('ModelRequestEvent', 'model_request', (t) => ({
  iteration: t.exposeInt('iteration', { description: 'The model call of the turn (from 1).' }),
  model: t.exposeString('model'),
  body: t.expose('body', { type: 'JSON', description: 'The request body exactly as sent to the provider.' }),
}));
const ContentEvent = eventType('ContentEvent', 'content', (t) => ({ delta: t.exposeString('delta') }));
const SourcesEvent = eventType('SourcesEvent', 'sources', (t) => ({ sources: t.field({ type: [SourceRef], resolve: (e: Of<'sources'>) => e.sources }) }));
const ToolCallEvent = eventType('ToolCallEvent', 'tool_call', (t) => ({
  toolCallId: t.exposeString('toolCallId'),
  name: t.exposeString('name'),
  arguments: t.expose('arguments', { type: 'JSON', nullable: true, description: 'Parsed arguments, or the raw text when it was not valid JSON.' }),
  iteration: t.exposeInt('iteration'),
}));
const ToolResultEvent = eventType('ToolResultEvent', 'tool_result', (t) => ({
  toolCallId: t.exposeString('toolCallId'),
  name: t.exposeString('name'),
  result: t.expose('result', { type: 'JSON', nullable: true }),
  isError: t.exposeBoolean('isError'),
}));
const ActionEvent = eventType('ActionEvent', 'action', (t) => ({
  actionType: t.exposeString('actionType'),
  payload: t.expose('payload', { type: 'JSON' }),
}));
const ApprovalNeededEvent = eventType('ApprovalNeededEvent', 'approval_needed', (t) => ({
  approvalId: t.id({ resolve: (e: { approvalId: string }) => encodeGlobalID('Approval', e.approvalId) }),
  toolCallId: t.exposeString('toolCallId'),
  name: t.exposeString('name'),
  arguments: t.expose('arguments', { type: 'JSON', nullable: true }),
  agentPath: t.exposeStringList('agentPath'),
}));
const ApprovalResultEvent = eventType('ApprovalResultEvent', 'approval_result', (t) => ({
  approvalId: t.id({ resolve: (e: { approvalId: string }) => encodeGlobalID('Approval', e.approvalId) }),
  approved: t.exposeBoolean('approved'),
  reason: t.exposeString('reason', { nullable: true }),
  decidedBy: t.exposeString('decidedBy', { nullable: true }),
}));
const ResumeEvent = eventType('ResumeEvent', 'resume', (t) => ({
  approvalId: t.id({ resolve: (e: Of<'resume'>) => encodeGlobalID('Approval', e.approvalId) }),
}));
const FinalEvent = eventType('FinalEvent', 'final', (t) => ({
  status: t.field({ type: TurnStatusEnum, resolve: (e: Of<'final'>) => e.status }),
  content: t.exposeString('content', { nullable: true }),
  sources: t.field({ type: [SourceRef], resolve: (e: Of<'final'>) => e.sources }),
  usage: t.field({ type: UsageRef, resolve: (e: Of<'final'>) => e.usage }),
}));
const ErrorEvent = eventType('ErrorEvent', 'error', (t) => ({
  code: t.exposeString('code'),
  message: t.exposeString('message'),
  details: t.field({
    type: 'JSON',
    nullable: true,
    description: 'What a caller needs to act on, e.g. {errors} for VALIDATION_FAILED structured output.',
    resolve: (e: Of<'error'>) => e.details ?? null,
  }),
}));

export const AgentEventUnion: UnionRef<AgentEventTypes, AgentEvent, AgentEvent> = builder.unionType('AgentEvent', {
  description: 'One step of a turn. Every member implements TurnEvent.',
  // A thunk, because ChildEvent (below) refers back to this union.
  types: () => [
    ThoughtEvent,
    ModelRequestEvent,
    ContentEvent,
    SourcesEvent,
    ToolCallEvent,
    ToolResultEvent,
    ActionEvent,
    ApprovalNeededEvent,
    ApprovalResultEvent,
    ResumeEvent,
    ChildEvent,
    FinalEvent,
    ErrorEvent,
  ],
  resolveType: (event: AgentEvent) => TYPE_NAMES[event.type],
});

const ChildEvent: ObjectRef<AgentEventTypes, Of<'child'>> = eventType('ChildEvent', 'child', (t) => ({
  childTurnId: t.id({ resolve: (e: Of<'child'>) => encodeGlobalID('Turn', e.childTurnId) }),
  childAgent: t.exposeString('childAgent'),
  path: t.exposeStringList('path', { description: 'Agent names from the top-level agent down to the child.' }),
  event: t.field({ type: AgentEventUnion, resolve: (e: Of<'child'>) => e.event }),
}));

const TYPE_NAMES: Record<AgentEvent['type'], string> = {
  thought: 'ThoughtEvent',
  model_request: 'ModelRequestEvent',
  content: 'ContentEvent',
  sources: 'SourcesEvent',
  tool_call: 'ToolCallEvent',
  tool_result: 'ToolResultEvent',
  action: 'ActionEvent',
  approval_needed: 'ApprovalNeededEvent',
  approval_result: 'ApprovalResultEvent',
  resume: 'ResumeEvent',
  child: 'ChildEvent',
  final: 'FinalEvent',
  error: 'ErrorEvent',
};
