/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AgentOrigin =
  /** Shipped with remgraph in schemas/. */
  | 'BUILTIN'
  /** Loaded from the operator’s AGENTS_DIR. */
  | 'FOLDER'
  /** Registered through registerAgent (stored in the database). */
  | 'REGISTERED';

export type ApprovalStatus =
  | 'APPROVED'
  | 'EXPIRED'
  | 'PENDING'
  | 'REJECTED';

export type ChangeOp =
  | 'ADDED'
  | 'CHANGED'
  | 'REMOVED'
  | 'SAME';

export type CreateCorpusInput = {
  /** Markdown; its version 1. */
  description?: string | null | undefined;
  name: string;
};

/** The turns: those named, or without ids your own completed turns matching the filters (oldest first). */
export type CreateDatasetFromTurnsInput = {
  agent?: string | null | undefined;
  /** 1–200 (default 50). */
  limit?: number | null | undefined;
  name: string;
  sessionIds?: Array<string> | null | undefined;
  since?: string | null | undefined;
  turnIds?: Array<string> | null | undefined;
  until?: string | null | undefined;
};

/** Stable machine-readable failure codes: of Error results, of `extensions.code` in GraphQL errors, and of turn and job errors. */
export type ErrorCode =
  | 'ALREADY_DECIDED'
  | 'BAD_USER_INPUT'
  | 'FORBIDDEN'
  | 'INTERNAL'
  | 'INTERRUPTED'
  | 'LIMIT_EXCEEDED'
  | 'MAX_ITERATIONS'
  | 'MODEL_ERROR'
  | 'NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'QUERY_SYNTAX'
  | 'RATE_LIMITED'
  | 'SESSION_BUSY'
  | 'TOOL_FAILED'
  | 'UNAUTHENTICATED'
  | 'VALIDATION_FAILED';

export type ExperimentResultStatus =
  | 'DONE'
  | 'ERROR'
  | 'PENDING'
  | 'RUNNING';

export type ExperimentStatus =
  | 'DONE'
  | 'FAILED'
  | 'QUEUED'
  | 'RUNNING';

export type MessageType =
  | 'assistant'
  | 'memory'
  | 'observation'
  | 'system'
  | 'think'
  | 'tool_call'
  | 'tool_response'
  | 'user';

export type RegressionOverridesInput = {
  /** Appended to the agent’s system prompt. */
  systemPromptSuffix?: string | null | undefined;
  /** From 0 to 2. */
  temperature?: number | null | undefined;
};

export type RegressionVerdict =
  | 'IMPROVED'
  | 'REGRESSED'
  | 'UNCHANGED';

export type RemMode =
  | 'FUZZY'
  | 'LOOKUP'
  | 'SEARCH'
  | 'SQL'
  | 'TRAVERSE';

/** What a replay changes; anything left out is as the replayed turn had it. */
export type ReplayOverridesInput = {
  /** A registered version of the turn’s agent. */
  agentVersion?: number | null | undefined;
  /** `provider:model`, a bare model of the default provider, or `demo`. */
  model?: string | null | undefined;
  /** Appended to the agent’s system prompt. */
  systemPromptSuffix?: string | null | undefined;
  /** From 0 to 2. */
  temperature?: number | null | undefined;
};

export type RunRegressionInput = {
  /** The candidate agent (default: each turn’s own). */
  agent?: string | null | undefined;
  /** A registered version of the candidate agent (default: its latest; each turn’s own without `agent` or this). */
  agentVersion?: number | null | undefined;
  /** Examples run at once, as for runExperiment. */
  concurrency?: number | null | undefined;
  /** A dataset made with createDatasetFromTurns. */
  datasetId: string;
  /** Evaluator agents (kind: evaluator, structured output): each judges the original and the candidate. */
  evaluators: Array<string>;
  /** The candidate model (default: each turn’s own). */
  model?: string | null | undefined;
  overrides?: RegressionOverridesInput | null | undefined;
};

export type SendMessageInput = {
  /** Agent name; defaults to the session’s agent, then X-Agent-Schema, then DEFAULT_AGENT. */
  agent?: string | null | undefined;
  content: string;
  /** Bind the turn (and the session) to this Corpus, or give the document’s corpus. */
  corpus?: string | null | undefined;
  /** Stream each model call’s exact request body (a ModelRequestEvent, stored with the turn’s events) just before the call, child agents’ included. */
  debug?: boolean | null | undefined;
  /** Bind the turn (and the session) to this Document: its tools are offered, its title told. */
  document?: string | null | undefined;
  /** Stream a turn that stores no messages (the user’s included); the turn itself is kept EPHEMERAL_TURN_RETENTION_MS after it ends. */
  ephemeral?: boolean | null | undefined;
  metadata?: unknown;
  /** `provider:model`, a bare model of the default provider, or `demo`. */
  model?: string | null | undefined;
  overrides?: TurnOverrides | null | undefined;
  /** Omit to start a new session. */
  sessionId?: string | null | undefined;
};

/** Settings for one turn, within what the agent allows. */
export type TurnOverrides = {
  /** At most the agent’s max_tokens when it sets one. */
  maxTokens?: number | null | undefined;
  /** Appended to the agent’s system prompt for this turn. */
  systemPromptSuffix?: string | null | undefined;
  temperature?: number | null | undefined;
  /** A subset of the agent’s tools; the others are not offered this turn. */
  tools?: Array<string> | null | undefined;
};

export type TurnStatus =
  | 'AWAITING_APPROVAL'
  | 'CANCELLED'
  | 'COMPLETED'
  | 'ERROR'
  | 'INTERRUPTED'
  | 'MAX_ITERATIONS'
  | 'RUNNING'
  | 'TOOL_CALLS';

export type UsageGroupBy =
  | 'AGENT'
  | 'DAY'
  | 'MODEL';

type CliError_AlreadyDecidedError_Fragment = { __typename: 'AlreadyDecidedError', code: ErrorCode, message: string };

type CliError_ForbiddenError_Fragment = { __typename: 'ForbiddenError', code: ErrorCode, message: string };

type CliError_ModelError_Fragment = { __typename: 'ModelError', code: ErrorCode, message: string };

type CliError_NotFoundError_Fragment = { __typename: 'NotFoundError', code: ErrorCode, message: string };

type CliError_PayloadTooLargeError_Fragment = { __typename: 'PayloadTooLargeError', code: ErrorCode, message: string };

type CliError_QuerySyntaxError_Fragment = { __typename: 'QuerySyntaxError', code: ErrorCode, message: string };

type CliError_RateLimitedError_Fragment = { __typename: 'RateLimitedError', code: ErrorCode, message: string };

type CliError_SessionBusyError_Fragment = { __typename: 'SessionBusyError', code: ErrorCode, message: string };

type CliError_ValidationError_Fragment = { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> };

export type CliErrorFragment =
  | CliError_AlreadyDecidedError_Fragment
  | CliError_ForbiddenError_Fragment
  | CliError_ModelError_Fragment
  | CliError_NotFoundError_Fragment
  | CliError_PayloadTooLargeError_Fragment
  | CliError_QuerySyntaxError_Fragment
  | CliError_RateLimitedError_Fragment
  | CliError_SessionBusyError_Fragment
  | CliError_ValidationError_Fragment
;

type CliEvent_ActionEvent_Fragment = { __typename: 'ActionEvent', seq: number, agent: string, depth: number, at: string, actionType: string, payload: unknown };

type CliEvent_ApprovalNeededEvent_Fragment = { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, at: string, approvalId: string, name: string, arguments: unknown, agentPath: Array<string> };

type CliEvent_ApprovalResultEvent_Fragment = { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, at: string, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null };

type CliEvent_ChildEvent_Fragment = { __typename: 'ChildEvent', seq: number, agent: string, depth: number, at: string };

type CliEvent_ContentEvent_Fragment = { __typename: 'ContentEvent', seq: number, agent: string, depth: number, at: string, delta: string };

type CliEvent_ErrorEvent_Fragment = { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, at: string, code: string, message: string };

type CliEvent_FinalEvent_Fragment = { __typename: 'FinalEvent', seq: number, agent: string, depth: number, at: string, status: TurnStatus, content: string | null, usage: { totalTokens: number, requests: number } };

type CliEvent_ModelRequestEvent_Fragment = { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number, at: string, iteration: number, model: string, body: unknown };

type CliEvent_ResumeEvent_Fragment = { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, at: string };

type CliEvent_SourcesEvent_Fragment = { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, at: string };

type CliEvent_ThoughtEvent_Fragment = { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, at: string, text: string };

type CliEvent_ToolCallEvent_Fragment = { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, at: string, name: string, arguments: unknown, iteration: number };

type CliEvent_ToolResultEvent_Fragment = { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, at: string, name: string, result: unknown, isError: boolean };

export type CliEventFragment =
  | CliEvent_ActionEvent_Fragment
  | CliEvent_ApprovalNeededEvent_Fragment
  | CliEvent_ApprovalResultEvent_Fragment
  | CliEvent_ChildEvent_Fragment
  | CliEvent_ContentEvent_Fragment
  | CliEvent_ErrorEvent_Fragment
  | CliEvent_FinalEvent_Fragment
  | CliEvent_ModelRequestEvent_Fragment
  | CliEvent_ResumeEvent_Fragment
  | CliEvent_SourcesEvent_Fragment
  | CliEvent_ThoughtEvent_Fragment
  | CliEvent_ToolCallEvent_Fragment
  | CliEvent_ToolResultEvent_Fragment
;

export type CliTurnEventsSubscriptionVariables = Exact<{
  turnId: string;
  after?: number | null | undefined;
}>;


export type CliTurnEventsSubscription = { turnEvents:
    | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, at: string, actionType: string, payload: unknown }
    | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, at: string, approvalId: string, name: string, arguments: unknown, agentPath: Array<string> }
    | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, at: string, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
    | { __typename: 'ChildEvent', childAgent: string, path: Array<string>, seq: number, agent: string, depth: number, at: string, event:
        | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, at: string, actionType: string, payload: unknown }
        | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, at: string, approvalId: string, name: string, arguments: unknown, agentPath: Array<string> }
        | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, at: string, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
        | { __typename: 'ChildEvent', seq: number, agent: string, depth: number, at: string }
        | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, at: string, delta: string }
        | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, at: string, code: string, message: string }
        | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, at: string, status: TurnStatus, content: string | null, usage: { totalTokens: number, requests: number } }
        | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number, at: string, iteration: number, model: string, body: unknown }
        | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, at: string }
        | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, at: string }
        | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, at: string, text: string }
        | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, at: string, name: string, arguments: unknown, iteration: number }
        | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, at: string, name: string, result: unknown, isError: boolean }
       }
    | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, at: string, delta: string }
    | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, at: string, code: string, message: string }
    | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, at: string, status: TurnStatus, content: string | null, usage: { totalTokens: number, requests: number } }
    | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number, at: string, iteration: number, model: string, body: unknown }
    | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, at: string }
    | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, at: string }
    | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, at: string, text: string }
    | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, at: string, name: string, arguments: unknown, iteration: number }
    | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, at: string, name: string, result: unknown, isError: boolean }
   };

export type CliSendMessageMutationVariables = Exact<{
  input: SendMessageInput;
}>;


export type CliSendMessageMutation = { sendMessage:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RateLimitedError', code: ErrorCode, message: string }
    | { __typename: 'SendMessagePayload', session: { id: string, name: string }, turn: { id: string, agent: string, model: string | null } }
    | { __typename: 'SessionBusyError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliCancelTurnMutationVariables = Exact<{
  id: string;
}>;


export type CliCancelTurnMutation = { cancelTurn:
    | { __typename: 'CancelTurnSuccess' }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliDecideApprovalMutationVariables = Exact<{
  id: string;
  approve: boolean;
  reason?: string | null | undefined;
}>;


export type CliDecideApprovalMutation = { decideApproval:
    | { __typename: 'AlreadyDecidedError', code: ErrorCode, message: string }
    | { __typename: 'DecideApprovalSuccess', approval: { id: string, status: ApprovalStatus, toolName: string, reason: string | null } }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliRemQueryQueryVariables = Exact<{
  query: string;
}>;


export type CliRemQueryQuery = { remQuery: { mode: RemMode, rows: unknown, truncated: boolean, hits: Array<{ key: string, entityType: string, name: string | null, summary: string | null, content: string | null, score: number | null, page: number | null, depth: number | null, relType: string | null, path: Array<string> | null }> } };

export type CliAgentsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CliAgentsQuery = { agents: { edges: Array<{ node: { name: string, version: number | null, origin: AgentOrigin, shared: boolean, model: string | null, description: string, tools: Array<{ name: string, requiresApproval: boolean }> } }> } };

export type CliAgentQueryVariables = Exact<{
  name: string;
  version?: number | null | undefined;
}>;


export type CliAgentQuery = { agent: { name: string, version: number | null, origin: AgentOrigin, shared: boolean, model: string | null, maxIterations: number, description: string, source: string, tools: Array<{ name: string, requiresApproval: boolean, server: string | null }> } | null };

export type CliValidateAgentMutationVariables = Exact<{
  yaml: string;
}>;


export type CliValidateAgentMutation = { validateAgent:
    | { __typename: 'AgentValidation', name: string, tools: Array<{ name: string, requiresApproval: boolean }> }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliRegisterAgentMutationVariables = Exact<{
  yaml: string;
  shared?: boolean | null | undefined;
}>;


export type CliRegisterAgentMutation = { registerAgent:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'RegisterAgentPayload', created: boolean, agent: { name: string, version: number | null } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliSessionsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CliSessionsQuery = { sessions: { edges: Array<{ node: { id: string, name: string, agent: string | null, updatedAt: string } }> } };

export type CliSessionQueryVariables = Exact<{
  id: string;
  first?: number | null | undefined;
}>;


export type CliSessionQuery = { session: { id: string, name: string, agent: string | null, createdAt: string, updatedAt: string, messages: { totalCount: number, edges: Array<{ node: { seq: number, type: MessageType, agentName: string | null, toolName: string | null, content: string | null, createdAt: string } }> }, turns: { edges: Array<{ node: { id: string, status: TurnStatus, lastSeq: number } }> } } | null };

export type CliApprovalsQueryVariables = Exact<{
  first?: number | null | undefined;
  status?: ApprovalStatus | null | undefined;
  sessionId?: string | null | undefined;
}>;


export type CliApprovalsQuery = { approvals: { edges: Array<{ node: { id: string, status: ApprovalStatus, toolName: string, arguments: unknown, agentPath: Array<string>, createdAt: string, reason: string | null, session: { id: string } } }> } };

export type CliReplayTurnMutationVariables = Exact<{
  turnId: string;
  overrides?: ReplayOverridesInput | null | undefined;
}>;


export type CliReplayTurnMutation = { replayTurn:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RateLimitedError', code: ErrorCode, message: string }
    | { __typename: 'SendMessagePayload', session: { id: string }, turn: { id: string, agent: string, agentVersion: number | null, model: string | null } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliComparedTurnFragment = { latencyMs: number | null, modelCalls: number, models: Array<string>, turn: { id: string, status: TurnStatus, agent: string, agentVersion: number | null, model: string | null }, usage: { inputTokens: number, outputTokens: number } };

export type CliCompareTurnsQueryVariables = Exact<{
  a: string;
  b: string;
}>;


export type CliCompareTurnsQuery = { compareTurns: { textChanged: boolean, a: { latencyMs: number | null, modelCalls: number, models: Array<string>, turn: { id: string, status: TurnStatus, agent: string, agentVersion: number | null, model: string | null }, usage: { inputTokens: number, outputTokens: number } }, b: { latencyMs: number | null, modelCalls: number, models: Array<string>, turn: { id: string, status: TurnStatus, agent: string, agentVersion: number | null, model: string | null }, usage: { inputTokens: number, outputTokens: number } }, text: Array<{ op: ChangeOp, text: string }>, toolCalls: Array<{ op: ChangeOp, name: string, changedArguments: Array<string>, argumentsA: unknown, argumentsB: unknown, resultChanged: boolean, resultA: unknown, resultB: unknown }>, sources: { added: Array<{ key: string, title: string | null }>, removed: Array<{ key: string, title: string | null }> } } };

export type CliDocumentsQueryVariables = Exact<{
  first?: number | null | undefined;
  corpusId?: string | null | undefined;
}>;


export type CliDocumentsQuery = { documents: { totalCount: number, edges: Array<{ node: { id: string, key: string, title: string, pageCount: number | null, length: number } }> } };

export type CliDocumentQueryVariables = Exact<{
  id: string;
}>;


export type CliDocumentQuery = { document: { id: string, key: string, title: string, pageCount: number | null, length: number, summary: string | null, text: string } };

export type CliCorporaQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CliCorporaQuery = { corpora: { edges: Array<{ node: { id: string, name: string, description: string | null, documents: { totalCount: number } } }> } };

export type CliCorpusQueryVariables = Exact<{
  id: string;
}>;


export type CliCorpusQuery = { corpus: { id: string, name: string, description: string | null, documents: { totalCount: number, edges: Array<{ node: { id: string, key: string, title: string } }> } } };

export type CliCreateCorpusMutationVariables = Exact<{
  input: CreateCorpusInput;
}>;


export type CliCreateCorpusMutation = { createCorpus:
    | { __typename: 'CreateCorpusSuccess', corpus: { id: string, name: string } }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type CliAddDocumentsToCorpusMutationVariables = Exact<{
  corpusId: string;
  documentIds: Array<string> | string;
}>;


export type CliAddDocumentsToCorpusMutation = { addDocumentsToCorpus:
    | { __typename: 'AddDocumentsSuccess', corpus: { id: string, name: string, documents: { totalCount: number } } }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type CliCreateDatasetFromTurnsMutationVariables = Exact<{
  input: CreateDatasetFromTurnsInput;
}>;


export type CliCreateDatasetFromTurnsMutation = { createDatasetFromTurns:
    | { __typename: 'CreateDatasetFromTurnsSuccess', dataset: { id: string, name: string, exampleCount: number } }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliRunRegressionMutationVariables = Exact<{
  input: RunRegressionInput;
}>;


export type CliRunRegressionMutation = { runRegression:
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RunRegressionSuccess', experiment: { id: string, total: number } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, issues: Array<{ path: Array<string>, message: string, line: number | null, column: number | null }> }
   };

export type CliExperimentProgressQueryVariables = Exact<{
  id: string;
}>;


export type CliExperimentProgressQuery = { experiment: { status: ExperimentStatus, done: number, total: number } | null };

export type CliRegressionSideFragment = { output: string | null, latencyMs: number | null, scores: unknown, usage: { inputTokens: number, outputTokens: number } };

export type CliRegressionQueryVariables = Exact<{
  experimentId: string;
}>;


export type CliRegressionQuery = { regression: { experiment: { id: string, status: ExperimentStatus, agent: string, model: string | null, evaluators: Array<string> }, examples: Array<{ ord: number, verdict: RegressionVerdict | null, example: { input: string }, result: { status: ExperimentResultStatus, error: unknown }, original: { output: string | null, latencyMs: number | null, scores: unknown, usage: { inputTokens: number, outputTokens: number } }, candidate: { output: string | null, latencyMs: number | null, scores: unknown, usage: { inputTokens: number, outputTokens: number } } | null, comparison: { textChanged: boolean, toolCalls: Array<{ op: ChangeOp, name: string }> } | null }>, summary: { total: number, finished: number, improved: number, regressed: number, unchanged: number, tokensA: number, tokensB: number, tokensDelta: number, latencyMsA: number, latencyMsB: number, latencyMsDelta: number } } };

export type CliUsageQueryVariables = Exact<{
  groupBy: UsageGroupBy;
  since?: string | null | undefined;
  until?: string | null | undefined;
}>;


export type CliUsageQuery = { usage: Array<{ key: string, requests: number, inputTokens: number, outputTokens: number, totalTokens: number, avgLatencyMs: number, totalLatencyMs: number }> };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const CliErrorFragmentDoc = new TypedDocumentString(`
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}
    `, {"fragmentName":"CliError"}) as unknown as TypedDocumentString<CliErrorFragment, unknown>;
export const CliEventFragmentDoc = new TypedDocumentString(`
    fragment CliEvent on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
    at
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ModelRequestEvent {
    iteration
    model
    body
  }
  ... on ToolCallEvent {
    name
    arguments
    iteration
  }
  ... on ToolResultEvent {
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on ApprovalNeededEvent {
    approvalId
    name
    arguments
    agentPath
  }
  ... on ApprovalResultEvent {
    approvalId
    approved
    reason
    decidedBy
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    usage {
      totalTokens
      requests
    }
  }
}
    `, {"fragmentName":"CliEvent"}) as unknown as TypedDocumentString<CliEventFragment, unknown>;
export const CliComparedTurnFragmentDoc = new TypedDocumentString(`
    fragment CliComparedTurn on ComparedTurn {
  turn {
    id
    status
    agent
    agentVersion
    model
  }
  usage {
    inputTokens
    outputTokens
  }
  latencyMs
  modelCalls
  models
}
    `, {"fragmentName":"CliComparedTurn"}) as unknown as TypedDocumentString<CliComparedTurnFragment, unknown>;
export const CliRegressionSideFragmentDoc = new TypedDocumentString(`
    fragment CliRegressionSide on RegressionSide {
  output
  latencyMs
  scores
  usage {
    inputTokens
    outputTokens
  }
}
    `, {"fragmentName":"CliRegressionSide"}) as unknown as TypedDocumentString<CliRegressionSideFragment, unknown>;
export const CliTurnEventsDocument = new TypedDocumentString(`
    subscription CliTurnEvents($turnId: ID!, $after: Int) {
  turnEvents(turnId: $turnId, after: $after) {
    ...CliEvent
    ... on ChildEvent {
      childAgent
      path
      event {
        ...CliEvent
      }
    }
  }
}
    fragment CliEvent on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
    at
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ModelRequestEvent {
    iteration
    model
    body
  }
  ... on ToolCallEvent {
    name
    arguments
    iteration
  }
  ... on ToolResultEvent {
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on ApprovalNeededEvent {
    approvalId
    name
    arguments
    agentPath
  }
  ... on ApprovalResultEvent {
    approvalId
    approved
    reason
    decidedBy
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    usage {
      totalTokens
      requests
    }
  }
}`) as unknown as TypedDocumentString<CliTurnEventsSubscription, CliTurnEventsSubscriptionVariables>;
export const CliSendMessageDocument = new TypedDocumentString(`
    mutation CliSendMessage($input: SendMessageInput!) {
  sendMessage(input: $input) {
    __typename
    ... on SendMessagePayload {
      session {
        id
        name
      }
      turn {
        id
        agent
        model
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliSendMessageMutation, CliSendMessageMutationVariables>;
export const CliCancelTurnDocument = new TypedDocumentString(`
    mutation CliCancelTurn($id: ID!) {
  cancelTurn(id: $id) {
    __typename
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliCancelTurnMutation, CliCancelTurnMutationVariables>;
export const CliDecideApprovalDocument = new TypedDocumentString(`
    mutation CliDecideApproval($id: ID!, $approve: Boolean!, $reason: String) {
  decideApproval(id: $id, approve: $approve, reason: $reason) {
    __typename
    ... on DecideApprovalSuccess {
      approval {
        id
        status
        toolName
        reason
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliDecideApprovalMutation, CliDecideApprovalMutationVariables>;
export const CliRemQueryDocument = new TypedDocumentString(`
    query CliRemQuery($query: String!) {
  remQuery(query: $query) {
    mode
    rows
    truncated
    hits {
      key
      entityType
      name
      summary
      content
      score
      page
      depth
      relType
      path
    }
  }
}
    `) as unknown as TypedDocumentString<CliRemQueryQuery, CliRemQueryQueryVariables>;
export const CliAgentsDocument = new TypedDocumentString(`
    query CliAgents($first: Int) {
  agents(first: $first) {
    edges {
      node {
        name
        version
        origin
        shared
        model
        description
        tools {
          name
          requiresApproval
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliAgentsQuery, CliAgentsQueryVariables>;
export const CliAgentDocument = new TypedDocumentString(`
    query CliAgent($name: String!, $version: Int) {
  agent(name: $name, version: $version) {
    name
    version
    origin
    shared
    model
    maxIterations
    description
    source
    tools {
      name
      requiresApproval
      server
    }
  }
}
    `) as unknown as TypedDocumentString<CliAgentQuery, CliAgentQueryVariables>;
export const CliValidateAgentDocument = new TypedDocumentString(`
    mutation CliValidateAgent($yaml: String!) {
  validateAgent(yaml: $yaml) {
    __typename
    ... on AgentValidation {
      name
      tools {
        name
        requiresApproval
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliValidateAgentMutation, CliValidateAgentMutationVariables>;
export const CliRegisterAgentDocument = new TypedDocumentString(`
    mutation CliRegisterAgent($yaml: String!, $shared: Boolean) {
  registerAgent(yaml: $yaml, shared: $shared) {
    __typename
    ... on RegisterAgentPayload {
      created
      agent {
        name
        version
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliRegisterAgentMutation, CliRegisterAgentMutationVariables>;
export const CliSessionsDocument = new TypedDocumentString(`
    query CliSessions($first: Int) {
  sessions(first: $first) {
    edges {
      node {
        id
        name
        agent
        updatedAt
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliSessionsQuery, CliSessionsQueryVariables>;
export const CliSessionDocument = new TypedDocumentString(`
    query CliSession($id: ID!, $first: Int) {
  session(id: $id) {
    id
    name
    agent
    createdAt
    updatedAt
    messages(first: $first) {
      totalCount
      edges {
        node {
          seq
          type
          agentName
          toolName
          content
          createdAt
        }
      }
    }
    turns(last: 1) {
      edges {
        node {
          id
          status
          lastSeq
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliSessionQuery, CliSessionQueryVariables>;
export const CliApprovalsDocument = new TypedDocumentString(`
    query CliApprovals($first: Int, $status: ApprovalStatus, $sessionId: ID) {
  approvals(first: $first, status: $status, sessionId: $sessionId) {
    edges {
      node {
        id
        status
        toolName
        arguments
        agentPath
        createdAt
        reason
        session {
          id
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliApprovalsQuery, CliApprovalsQueryVariables>;
export const CliReplayTurnDocument = new TypedDocumentString(`
    mutation CliReplayTurn($turnId: ID!, $overrides: ReplayOverridesInput) {
  replayTurn(turnId: $turnId, overrides: $overrides) {
    __typename
    ... on SendMessagePayload {
      session {
        id
      }
      turn {
        id
        agent
        agentVersion
        model
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliReplayTurnMutation, CliReplayTurnMutationVariables>;
export const CliCompareTurnsDocument = new TypedDocumentString(`
    query CliCompareTurns($a: ID!, $b: ID!) {
  compareTurns(a: $a, b: $b) {
    a {
      ...CliComparedTurn
    }
    b {
      ...CliComparedTurn
    }
    textChanged
    text {
      op
      text
    }
    toolCalls {
      op
      name
      changedArguments
      argumentsA
      argumentsB
      resultChanged
      resultA
      resultB
    }
    sources {
      added {
        key
        title
      }
      removed {
        key
        title
      }
    }
  }
}
    fragment CliComparedTurn on ComparedTurn {
  turn {
    id
    status
    agent
    agentVersion
    model
  }
  usage {
    inputTokens
    outputTokens
  }
  latencyMs
  modelCalls
  models
}`) as unknown as TypedDocumentString<CliCompareTurnsQuery, CliCompareTurnsQueryVariables>;
export const CliDocumentsDocument = new TypedDocumentString(`
    query CliDocuments($first: Int, $corpusId: ID) {
  documents(first: $first, corpusId: $corpusId) {
    totalCount
    edges {
      node {
        id
        key
        title
        pageCount
        length
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliDocumentsQuery, CliDocumentsQueryVariables>;
export const CliDocumentDocument = new TypedDocumentString(`
    query CliDocument($id: ID!) {
  document(id: $id) {
    id
    key
    title
    pageCount
    length
    summary
    text
  }
}
    `) as unknown as TypedDocumentString<CliDocumentQuery, CliDocumentQueryVariables>;
export const CliCorporaDocument = new TypedDocumentString(`
    query CliCorpora($first: Int) {
  corpora(first: $first) {
    edges {
      node {
        id
        name
        description
        documents {
          totalCount
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliCorporaQuery, CliCorporaQueryVariables>;
export const CliCorpusDocument = new TypedDocumentString(`
    query CliCorpus($id: ID!) {
  corpus(id: $id) {
    id
    name
    description
    documents(first: 100) {
      totalCount
      edges {
        node {
          id
          key
          title
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliCorpusQuery, CliCorpusQueryVariables>;
export const CliCreateCorpusDocument = new TypedDocumentString(`
    mutation CliCreateCorpus($input: CreateCorpusInput!) {
  createCorpus(input: $input) {
    __typename
    ... on CreateCorpusSuccess {
      corpus {
        id
        name
      }
    }
    ... on Error {
      code
      message
    }
  }
}
    `) as unknown as TypedDocumentString<CliCreateCorpusMutation, CliCreateCorpusMutationVariables>;
export const CliAddDocumentsToCorpusDocument = new TypedDocumentString(`
    mutation CliAddDocumentsToCorpus($corpusId: ID!, $documentIds: [ID!]!) {
  addDocumentsToCorpus(corpusId: $corpusId, documentIds: $documentIds) {
    __typename
    ... on AddDocumentsSuccess {
      corpus {
        id
        name
        documents {
          totalCount
        }
      }
    }
    ... on Error {
      code
      message
    }
  }
}
    `) as unknown as TypedDocumentString<CliAddDocumentsToCorpusMutation, CliAddDocumentsToCorpusMutationVariables>;
export const CliCreateDatasetFromTurnsDocument = new TypedDocumentString(`
    mutation CliCreateDatasetFromTurns($input: CreateDatasetFromTurnsInput!) {
  createDatasetFromTurns(input: $input) {
    __typename
    ... on CreateDatasetFromTurnsSuccess {
      dataset {
        id
        name
        exampleCount
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliCreateDatasetFromTurnsMutation, CliCreateDatasetFromTurnsMutationVariables>;
export const CliRunRegressionDocument = new TypedDocumentString(`
    mutation CliRunRegression($input: RunRegressionInput!) {
  runRegression(input: $input) {
    __typename
    ... on RunRegressionSuccess {
      experiment {
        id
        total
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
  ... on ValidationError {
    issues {
      path
      message
      line
      column
    }
  }
}`) as unknown as TypedDocumentString<CliRunRegressionMutation, CliRunRegressionMutationVariables>;
export const CliExperimentProgressDocument = new TypedDocumentString(`
    query CliExperimentProgress($id: ID!) {
  experiment(id: $id) {
    status
    done
    total
  }
}
    `) as unknown as TypedDocumentString<CliExperimentProgressQuery, CliExperimentProgressQueryVariables>;
export const CliRegressionDocument = new TypedDocumentString(`
    query CliRegression($experimentId: ID!) {
  regression(experimentId: $experimentId) {
    experiment {
      id
      status
      agent
      model
      evaluators
    }
    examples {
      ord
      verdict
      example {
        input
      }
      result {
        status
        error
      }
      original {
        ...CliRegressionSide
      }
      candidate {
        ...CliRegressionSide
      }
      comparison {
        textChanged
        toolCalls {
          op
          name
        }
      }
    }
    summary {
      total
      finished
      improved
      regressed
      unchanged
      tokensA
      tokensB
      tokensDelta
      latencyMsA
      latencyMsB
      latencyMsDelta
    }
  }
}
    fragment CliRegressionSide on RegressionSide {
  output
  latencyMs
  scores
  usage {
    inputTokens
    outputTokens
  }
}`) as unknown as TypedDocumentString<CliRegressionQuery, CliRegressionQueryVariables>;
export const CliUsageDocument = new TypedDocumentString(`
    query CliUsage($groupBy: UsageGroupBy!, $since: DateTime, $until: DateTime) {
  usage(groupBy: $groupBy, since: $since, until: $until) {
    key
    requests
    inputTokens
    outputTokens
    totalTokens
    avgLatencyMs
    totalLatencyMs
  }
}
    `) as unknown as TypedDocumentString<CliUsageQuery, CliUsageQueryVariables>;