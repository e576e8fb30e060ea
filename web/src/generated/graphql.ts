/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type ApprovalStatus =
  | 'APPROVED'
  | 'EXPIRED'
  | 'PENDING'
  | 'REJECTED';

export type AuthMode =
  /** Identity from X-User-Id headers (development only) */
  | 'HEADERS'
  | 'JWT';

export type ChangeOp =
  | 'ADDED'
  | 'CHANGED'
  | 'REMOVED'
  | 'SAME';

export type CreateSessionInput = {
  agent?: string | null | undefined;
  metadata?: unknown;
  name?: string | null | undefined;
  /** Let the routing classifier pick the active agent when no routing rule matches. */
  routing?: boolean | null | undefined;
};

export type EmailDraftStatus =
  | 'DISCARDED'
  | 'PENDING'
  | 'SENT';

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

export type InboundEmailStatus =
  | 'AWAITING_APPROVAL'
  | 'DONE'
  | 'ESCALATED'
  | 'FAILED'
  | 'PROCESSING'
  | 'RECEIVED';

export type IngestStage =
  | 'DONE'
  | 'EMBEDDING'
  | 'EXTRACTING'
  | 'FAILED'
  | 'STORING';

export type JobStatus =
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

export type SentReplyStatus =
  | 'SENDING'
  | 'SENT'
  | 'UNKNOWN';

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

type WebError_AlreadyDecidedError_Fragment = { __typename: 'AlreadyDecidedError', code: ErrorCode, message: string };

type WebError_ForbiddenError_Fragment = { __typename: 'ForbiddenError', code: ErrorCode, message: string };

type WebError_ModelError_Fragment = { __typename: 'ModelError', code: ErrorCode, message: string };

type WebError_NotFoundError_Fragment = { __typename: 'NotFoundError', code: ErrorCode, message: string };

type WebError_PayloadTooLargeError_Fragment = { __typename: 'PayloadTooLargeError', code: ErrorCode, message: string };

type WebError_QuerySyntaxError_Fragment = { __typename: 'QuerySyntaxError', code: ErrorCode, message: string };

type WebError_RateLimitedError_Fragment = { __typename: 'RateLimitedError', code: ErrorCode, message: string };

type WebError_SessionBusyError_Fragment = { __typename: 'SessionBusyError', code: ErrorCode, message: string };

type WebError_ValidationError_Fragment = { __typename: 'ValidationError', code: ErrorCode, message: string };

export type WebErrorFragment =
  | WebError_AlreadyDecidedError_Fragment
  | WebError_ForbiddenError_Fragment
  | WebError_ModelError_Fragment
  | WebError_NotFoundError_Fragment
  | WebError_PayloadTooLargeError_Fragment
  | WebError_QuerySyntaxError_Fragment
  | WebError_RateLimitedError_Fragment
  | WebError_SessionBusyError_Fragment
  | WebError_ValidationError_Fragment
;

export type WebSessionFragment = { id: string, name: string, agent: string | null, updatedAt: string };

type StepFields_ActionEvent_Fragment = { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown };

type StepFields_ApprovalNeededEvent_Fragment = { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> };

type StepFields_ApprovalResultEvent_Fragment = { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null };

type StepFields_ChildEvent_Fragment = { __typename: 'ChildEvent', seq: number, agent: string, depth: number };

type StepFields_ContentEvent_Fragment = { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string };

type StepFields_ErrorEvent_Fragment = { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string };

type StepFields_FinalEvent_Fragment = { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } };

type StepFields_ModelRequestEvent_Fragment = { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number };

type StepFields_ResumeEvent_Fragment = { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string };

type StepFields_SourcesEvent_Fragment = { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> };

type StepFields_ThoughtEvent_Fragment = { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string };

type StepFields_ToolCallEvent_Fragment = { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown };

type StepFields_ToolResultEvent_Fragment = { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean };

export type StepFieldsFragment =
  | StepFields_ActionEvent_Fragment
  | StepFields_ApprovalNeededEvent_Fragment
  | StepFields_ApprovalResultEvent_Fragment
  | StepFields_ChildEvent_Fragment
  | StepFields_ContentEvent_Fragment
  | StepFields_ErrorEvent_Fragment
  | StepFields_FinalEvent_Fragment
  | StepFields_ModelRequestEvent_Fragment
  | StepFields_ResumeEvent_Fragment
  | StepFields_SourcesEvent_Fragment
  | StepFields_ThoughtEvent_Fragment
  | StepFields_ToolCallEvent_Fragment
  | StepFields_ToolResultEvent_Fragment
;

export type WebSourceFragment = { key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null };

type WebEvent_ActionEvent_Fragment = { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown };

type WebEvent_ApprovalNeededEvent_Fragment = { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> };

type WebEvent_ApprovalResultEvent_Fragment = { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null };

type WebEvent_ChildEvent_Fragment = { __typename: 'ChildEvent', childTurnId: string, childAgent: string, path: Array<string>, seq: number, agent: string, depth: number, event:
    | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
    | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
    | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
    | { __typename: 'ChildEvent', seq: number, agent: string, depth: number }
    | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
    | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
    | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
    | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
    | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
    | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
    | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
    | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
    | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
   };

type WebEvent_ContentEvent_Fragment = { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string };

type WebEvent_ErrorEvent_Fragment = { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string };

type WebEvent_FinalEvent_Fragment = { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } };

type WebEvent_ModelRequestEvent_Fragment = { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number };

type WebEvent_ResumeEvent_Fragment = { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string };

type WebEvent_SourcesEvent_Fragment = { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> };

type WebEvent_ThoughtEvent_Fragment = { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string };

type WebEvent_ToolCallEvent_Fragment = { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown };

type WebEvent_ToolResultEvent_Fragment = { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean };

export type WebEventFragment =
  | WebEvent_ActionEvent_Fragment
  | WebEvent_ApprovalNeededEvent_Fragment
  | WebEvent_ApprovalResultEvent_Fragment
  | WebEvent_ChildEvent_Fragment
  | WebEvent_ContentEvent_Fragment
  | WebEvent_ErrorEvent_Fragment
  | WebEvent_FinalEvent_Fragment
  | WebEvent_ModelRequestEvent_Fragment
  | WebEvent_ResumeEvent_Fragment
  | WebEvent_SourcesEvent_Fragment
  | WebEvent_ThoughtEvent_Fragment
  | WebEvent_ToolCallEvent_Fragment
  | WebEvent_ToolResultEvent_Fragment
;

export type WebTurnFragment = { id: string, status: TurnStatus, agent: string, model: string | null, startedAt: string, lastSeq: number, events: Array<
    | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
    | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
    | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
    | { __typename: 'ChildEvent', childTurnId: string, childAgent: string, path: Array<string>, seq: number, agent: string, depth: number, event:
        | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
        | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
        | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
        | { __typename: 'ChildEvent', seq: number, agent: string, depth: number }
        | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
        | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
        | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
        | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
        | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
        | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
        | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
        | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
        | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
       }
    | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
    | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
    | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
    | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
    | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
    | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
    | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
    | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
    | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
  > };

export type WebViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type WebViewerQuery = { viewer: { userId: string | null, tenantId: string, authMode: AuthMode, defaultModel: string | null, isAdmin: boolean } };

export type WebAgentsQueryVariables = Exact<{ [key: string]: never; }>;


export type WebAgentsQuery = { agents: { edges: Array<{ node: { name: string, description: string, model: string | null, tools: Array<{ name: string, requiresApproval: boolean }> } }> } };

export type WebSessionsQueryVariables = Exact<{ [key: string]: never; }>;


export type WebSessionsQuery = { sessions: { edges: Array<{ node: { id: string, name: string, agent: string | null, updatedAt: string } }> } };

export type WebConversationQueryVariables = Exact<{
  id: string;
}>;


export type WebConversationQuery = { session: { createdAt: string, id: string, name: string, agent: string | null, updatedAt: string, document: { id: string, title: string } | null, corpus: { id: string, name: string } | null, messages: { edges: Array<{ node: { id: string, type: MessageType, content: string | null, createdAt: string } }> }, turns: { edges: Array<{ node: { id: string, status: TurnStatus, agent: string, model: string | null, startedAt: string, lastSeq: number, events: Array<
            | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
            | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
            | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
            | { __typename: 'ChildEvent', childTurnId: string, childAgent: string, path: Array<string>, seq: number, agent: string, depth: number, event:
                | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
                | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
                | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
                | { __typename: 'ChildEvent', seq: number, agent: string, depth: number }
                | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
                | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
                | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
                | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
                | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
                | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
                | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
                | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
                | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
               }
            | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
            | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
            | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
            | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
            | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
            | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
            | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
            | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
            | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
          > } }> } } | null };

export type WebTurnEventsQueryVariables = Exact<{
  id: string;
  after?: number | null | undefined;
}>;


export type WebTurnEventsQuery = { turn: { id: string, status: TurnStatus, events: Array<
      | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
      | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
      | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
      | { __typename: 'ChildEvent', childTurnId: string, childAgent: string, path: Array<string>, seq: number, agent: string, depth: number, event:
          | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
          | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
          | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
          | { __typename: 'ChildEvent', seq: number, agent: string, depth: number }
          | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
          | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
          | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
          | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
          | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
          | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
          | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
          | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
          | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
         }
      | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
      | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
      | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
      | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
      | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
      | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
      | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
      | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
      | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
    > } | null };

export type WebCreateSessionMutationVariables = Exact<{
  input: CreateSessionInput;
}>;


export type WebCreateSessionMutation = { createSession:
    | { __typename: 'CreateSessionSuccess', session: { id: string, name: string, agent: string | null, updatedAt: string } }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebRenameSessionMutationVariables = Exact<{
  id: string;
  name: string;
}>;


export type WebRenameSessionMutation = { renameSession:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RenameSessionSuccess', session: { id: string, name: string, agent: string | null, updatedAt: string } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebDeleteSessionMutationVariables = Exact<{
  id: string;
}>;


export type WebDeleteSessionMutation = { deleteSession:
    | { __typename: 'DeleteSessionSuccess' }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebSendMessageMutationVariables = Exact<{
  input: SendMessageInput;
}>;


export type WebSendMessageMutation = { sendMessage:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RateLimitedError', code: ErrorCode, message: string }
    | { __typename: 'SendMessagePayload', session: { id: string, name: string, agent: string | null, updatedAt: string }, userMessage: { id: string, type: MessageType, content: string | null, createdAt: string } | null, turn: { id: string, status: TurnStatus, agent: string, model: string | null, startedAt: string, lastSeq: number } }
    | { __typename: 'SessionBusyError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebRegenerateMutationVariables = Exact<{
  turnId: string;
}>;


export type WebRegenerateMutation = { regenerate:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RateLimitedError', code: ErrorCode, message: string }
    | { __typename: 'SendMessagePayload', turn: { id: string, status: TurnStatus, agent: string, model: string | null, startedAt: string, lastSeq: number } }
    | { __typename: 'SessionBusyError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebCancelTurnMutationVariables = Exact<{
  id: string;
}>;


export type WebCancelTurnMutation = { cancelTurn:
    | { __typename: 'CancelTurnSuccess' }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebDecideApprovalMutationVariables = Exact<{
  id: string;
  approve: boolean;
  reason?: string | null | undefined;
}>;


export type WebDecideApprovalMutation = { decideApproval:
    | { __typename: 'AlreadyDecidedError', code: ErrorCode, message: string }
    | { __typename: 'DecideApprovalSuccess', approval: { id: string, status: ApprovalStatus } }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebFollowTurnSubscriptionVariables = Exact<{
  turnId: string;
  after?: number | null | undefined;
}>;


export type WebFollowTurnSubscription = { turnEvents:
    | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
    | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
    | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
    | { __typename: 'ChildEvent', childTurnId: string, childAgent: string, path: Array<string>, seq: number, agent: string, depth: number, event:
        | { __typename: 'ActionEvent', seq: number, agent: string, depth: number, actionType: string, payload: unknown }
        | { __typename: 'ApprovalNeededEvent', seq: number, agent: string, depth: number, approvalId: string, toolCallId: string, name: string, arguments: unknown, agentPath: Array<string> }
        | { __typename: 'ApprovalResultEvent', seq: number, agent: string, depth: number, approvalId: string, approved: boolean, reason: string | null, decidedBy: string | null }
        | { __typename: 'ChildEvent', seq: number, agent: string, depth: number }
        | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
        | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
        | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
        | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
        | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
        | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
        | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
        | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
        | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
       }
    | { __typename: 'ContentEvent', seq: number, agent: string, depth: number, delta: string }
    | { __typename: 'ErrorEvent', seq: number, agent: string, depth: number, code: string, message: string }
    | { __typename: 'FinalEvent', seq: number, agent: string, depth: number, status: TurnStatus, content: string | null, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }
    | { __typename: 'ModelRequestEvent', seq: number, agent: string, depth: number }
    | { __typename: 'ResumeEvent', seq: number, agent: string, depth: number, approvalId: string }
    | { __typename: 'SourcesEvent', seq: number, agent: string, depth: number, sources: Array<{ key: string, title: string | null, uri: string | null, snippet: string | null, score: number | null, entityType: string | null }> }
    | { __typename: 'ThoughtEvent', seq: number, agent: string, depth: number, text: string }
    | { __typename: 'ToolCallEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, arguments: unknown }
    | { __typename: 'ToolResultEvent', seq: number, agent: string, depth: number, toolCallId: string, name: string, result: unknown, isError: boolean }
   };

export type WebRemQueryQueryVariables = Exact<{
  query: string;
}>;


export type WebRemQueryQuery = { remQuery: { mode: RemMode, tookMs: number, rows: unknown, truncated: boolean, hits: Array<{ id: string, key: string, entityType: string, name: string | null, summary: string | null, content: string | null, score: number | null, path: Array<string> | null, relType: string | null }> } };

export type WebEntityQueryVariables = Exact<{
  key: string;
}>;


export type WebEntityQuery = { entity: { key: string, name: string | null, entityType: string | null, summary: string | null, content: string | null, tags: Array<string>, uri: string | null, extractedData: unknown, updatedAt: string, graphEdges: Array<{ dst: string, relType: string, weight: number, target: { key: string, name: string | null, entityType: string | null } | null }> } | null };

export type WebPendingApprovalFragment = { id: string, toolName: string, arguments: unknown, agentPath: Array<string>, createdAt: string, session: { id: string, name: string }, turn: { id: string } };

export type WebPendingApprovalsQueryVariables = Exact<{ [key: string]: never; }>;


export type WebPendingApprovalsQuery = { approvals: { edges: Array<{ node: { id: string, toolName: string, arguments: unknown, agentPath: Array<string>, createdAt: string, session: { id: string, name: string }, turn: { id: string } } }> } };

export type WebApprovalsChangedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type WebApprovalsChangedSubscription = { approvalsChanged: { id: string, status: ApprovalStatus } };

type InspectEvent_ActionEvent_Fragment = { __typename: 'ActionEvent', seq: number, at: string, agent: string };

type InspectEvent_ApprovalNeededEvent_Fragment = { __typename: 'ApprovalNeededEvent', seq: number, at: string, agent: string };

type InspectEvent_ApprovalResultEvent_Fragment = { __typename: 'ApprovalResultEvent', seq: number, at: string, agent: string };

type InspectEvent_ChildEvent_Fragment = { __typename: 'ChildEvent', seq: number, at: string, agent: string, childTurnId: string, childAgent: string, event:
    | { __typename: 'ActionEvent' }
    | { __typename: 'ApprovalNeededEvent' }
    | { __typename: 'ApprovalResultEvent' }
    | { __typename: 'ChildEvent' }
    | { __typename: 'ContentEvent' }
    | { __typename: 'ErrorEvent' }
    | { __typename: 'FinalEvent', status: TurnStatus }
    | { __typename: 'ModelRequestEvent' }
    | { __typename: 'ResumeEvent' }
    | { __typename: 'SourcesEvent' }
    | { __typename: 'ThoughtEvent' }
    | { __typename: 'ToolCallEvent', toolCallId: string, name: string, arguments: unknown }
    | { __typename: 'ToolResultEvent', toolCallId: string, result: unknown, isError: boolean }
   };

type InspectEvent_ContentEvent_Fragment = { __typename: 'ContentEvent', seq: number, at: string, agent: string };

type InspectEvent_ErrorEvent_Fragment = { __typename: 'ErrorEvent', seq: number, at: string, agent: string };

type InspectEvent_FinalEvent_Fragment = { __typename: 'FinalEvent', seq: number, at: string, agent: string };

type InspectEvent_ModelRequestEvent_Fragment = { __typename: 'ModelRequestEvent', seq: number, at: string, agent: string };

type InspectEvent_ResumeEvent_Fragment = { __typename: 'ResumeEvent', seq: number, at: string, agent: string };

type InspectEvent_SourcesEvent_Fragment = { __typename: 'SourcesEvent', seq: number, at: string, agent: string };

type InspectEvent_ThoughtEvent_Fragment = { __typename: 'ThoughtEvent', seq: number, at: string, agent: string };

type InspectEvent_ToolCallEvent_Fragment = { __typename: 'ToolCallEvent', seq: number, at: string, agent: string, toolCallId: string, name: string, arguments: unknown };

type InspectEvent_ToolResultEvent_Fragment = { __typename: 'ToolResultEvent', seq: number, at: string, agent: string, toolCallId: string, result: unknown, isError: boolean };

export type InspectEventFragment =
  | InspectEvent_ActionEvent_Fragment
  | InspectEvent_ApprovalNeededEvent_Fragment
  | InspectEvent_ApprovalResultEvent_Fragment
  | InspectEvent_ChildEvent_Fragment
  | InspectEvent_ContentEvent_Fragment
  | InspectEvent_ErrorEvent_Fragment
  | InspectEvent_FinalEvent_Fragment
  | InspectEvent_ModelRequestEvent_Fragment
  | InspectEvent_ResumeEvent_Fragment
  | InspectEvent_SourcesEvent_Fragment
  | InspectEvent_ThoughtEvent_Fragment
  | InspectEvent_ToolCallEvent_Fragment
  | InspectEvent_ToolResultEvent_Fragment
;

export type InspectCallFragment = { iteration: number, model: string, provider: string, latencyMs: number, createdAt: string, finishReason: string | null, error: string | null, request: unknown, usage: { inputTokens: number, outputTokens: number, estimated: boolean } };

export type InspectChildFragment = { id: string, agent: string, status: TurnStatus, startedAt: string, finishedAt: string | null, llmCalls: Array<{ iteration: number, model: string, provider: string, latencyMs: number, createdAt: string, finishReason: string | null, error: string | null, request: unknown, usage: { inputTokens: number, outputTokens: number, estimated: boolean } }> | null };

export type WebInspectTurnQueryVariables = Exact<{
  id: string;
}>;


export type WebInspectTurnQuery = { turn: { id: string, agent: string, status: TurnStatus, startedAt: string, finishedAt: string | null, traceId: string | null, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean }, llmCalls: Array<{ iteration: number, model: string, provider: string, latencyMs: number, createdAt: string, finishReason: string | null, error: string | null, request: unknown, usage: { inputTokens: number, outputTokens: number, estimated: boolean } }> | null, children: Array<{ id: string, agent: string, status: TurnStatus, startedAt: string, finishedAt: string | null, children: Array<{ id: string, agent: string, status: TurnStatus, startedAt: string, finishedAt: string | null, llmCalls: Array<{ iteration: number, model: string, provider: string, latencyMs: number, createdAt: string, finishReason: string | null, error: string | null, request: unknown, usage: { inputTokens: number, outputTokens: number, estimated: boolean } }> | null }>, llmCalls: Array<{ iteration: number, model: string, provider: string, latencyMs: number, createdAt: string, finishReason: string | null, error: string | null, request: unknown, usage: { inputTokens: number, outputTokens: number, estimated: boolean } }> | null }>, events: Array<
      | { __typename: 'ActionEvent', seq: number, at: string, agent: string }
      | { __typename: 'ApprovalNeededEvent', seq: number, at: string, agent: string }
      | { __typename: 'ApprovalResultEvent', seq: number, at: string, agent: string }
      | { __typename: 'ChildEvent', seq: number, at: string, agent: string, childTurnId: string, childAgent: string, event:
          | { __typename: 'ActionEvent' }
          | { __typename: 'ApprovalNeededEvent' }
          | { __typename: 'ApprovalResultEvent' }
          | { __typename: 'ChildEvent' }
          | { __typename: 'ContentEvent' }
          | { __typename: 'ErrorEvent' }
          | { __typename: 'FinalEvent', status: TurnStatus }
          | { __typename: 'ModelRequestEvent' }
          | { __typename: 'ResumeEvent' }
          | { __typename: 'SourcesEvent' }
          | { __typename: 'ThoughtEvent' }
          | { __typename: 'ToolCallEvent', toolCallId: string, name: string, arguments: unknown }
          | { __typename: 'ToolResultEvent', toolCallId: string, result: unknown, isError: boolean }
         }
      | { __typename: 'ContentEvent', seq: number, at: string, agent: string }
      | { __typename: 'ErrorEvent', seq: number, at: string, agent: string }
      | { __typename: 'FinalEvent', seq: number, at: string, agent: string }
      | { __typename: 'ModelRequestEvent', seq: number, at: string, agent: string }
      | { __typename: 'ResumeEvent', seq: number, at: string, agent: string }
      | { __typename: 'SourcesEvent', seq: number, at: string, agent: string }
      | { __typename: 'ThoughtEvent', seq: number, at: string, agent: string }
      | { __typename: 'ToolCallEvent', seq: number, at: string, agent: string, toolCallId: string, name: string, arguments: unknown }
      | { __typename: 'ToolResultEvent', seq: number, at: string, agent: string, toolCallId: string, result: unknown, isError: boolean }
    >, approvals: Array<{ id: string, toolName: string, status: ApprovalStatus, createdAt: string, decidedAt: string | null, decidedBy: string | null }> } | null };

export type WebIngestFileMutationVariables = Exact<{
  file: File;
  progressId?: string | null | undefined;
}>;


export type WebIngestFileMutation = { ingestFile:
    | { __typename: 'IngestFileSuccess', chunks: number, unchanged: boolean, resource: { key: string } }
    | { __typename: 'PayloadTooLargeError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebIngestProgressSubscriptionVariables = Exact<{
  progressId: string;
}>;


export type WebIngestProgressSubscription = { ingestProgress: { stage: IngestStage, chunks: number | null } };

export type WebForkSessionMutationVariables = Exact<{
  sessionId: string;
  atMessageId: string;
}>;


export type WebForkSessionMutation = { forkSession:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'ForkSessionSuccess', session: { id: string } }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebTurnAnswerQueryVariables = Exact<{
  id: string;
}>;


export type WebTurnAnswerQuery = { turn: { finalMessage: { id: string } | null } | null };

export type WebReplayTurnMutationVariables = Exact<{
  turnId: string;
  overrides?: ReplayOverridesInput | null | undefined;
}>;


export type WebReplayTurnMutation = { replayTurn:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RateLimitedError', code: ErrorCode, message: string }
    | { __typename: 'SendMessagePayload', session: { id: string }, turn: { id: string, status: TurnStatus, agent: string } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type WebComparedTurnFragment = { text: string | null, latencyMs: number | null, modelCalls: number, models: Array<string>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean }, turn: { id: string, agent: string, status: TurnStatus, session: { id: string } } };

export type WebCompareTurnsQueryVariables = Exact<{
  a: string;
  b: string;
}>;


export type WebCompareTurnsQuery = { compareTurns: { textChanged: boolean, a: { text: string | null, latencyMs: number | null, modelCalls: number, models: Array<string>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean }, turn: { id: string, agent: string, status: TurnStatus, session: { id: string } } }, b: { text: string | null, latencyMs: number | null, modelCalls: number, models: Array<string>, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean }, turn: { id: string, agent: string, status: TurnStatus, session: { id: string } } }, text: Array<{ op: ChangeOp, text: string }>, toolCalls: Array<{ op: ChangeOp, name: string, changedArguments: Array<string>, argumentsA: unknown, argumentsB: unknown, resultChanged: boolean }>, sources: { added: Array<{ key: string }>, removed: Array<{ key: string }> } } };

export type WebLibraryQueryVariables = Exact<{ [key: string]: never; }>;


export type WebLibraryQuery = { corpora: { edges: Array<{ node: { id: string, name: string, description: string | null, documents: { edges: Array<{ node: { id: string, title: string } }> } } }> }, documents: { edges: Array<{ node: { id: string, title: string } }> } };

export type WebDocumentQueryVariables = Exact<{
  id: string;
  corpusId: string;
  withCorpus: boolean;
}>;


export type WebDocumentQuery = { document: { id: string, title: string, pageCount: number | null, text: string, summary: string | null, summaryVersions: Array<{ version: number, authorId: string | null, agentName: string | null, createdAt: string }>, annotations?: Array<{ id: string, label: string, start: number, end: number }>, notes?: Array<{ id: string, title: string, content: string, revisions: Array<{ version: number, content: string }> }> } };

export type WebSummaryDiffQueryVariables = Exact<{
  id: string;
  from: number;
  to: number;
}>;


export type WebSummaryDiffQuery = { document: { summaryDiff: string } };

export type WebExperimentsQueryVariables = Exact<{ [key: string]: never; }>;


export type WebExperimentsQuery = { experiments: { edges: Array<{ node: { id: string, agent: string, model: string | null, status: ExperimentStatus, done: number, total: number, regression: boolean, evaluators: Array<string>, createdAt: string, dataset: { id: string, name: string } } }> } };

export type WebExperimentHeadFragment = { id: string, agent: string, model: string | null, status: ExperimentStatus, done: number, total: number, regression: boolean, evaluators: Array<string>, createdAt: string, dataset: { id: string, name: string } };

export type WebExperimentProgressSubscriptionVariables = Exact<{
  id: string;
}>;


export type WebExperimentProgressSubscription = { experimentProgress: { id: string, status: ExperimentStatus, done: number, total: number } };

export type WebRegressionSideFragment = { output: string | null, toolCalls: unknown, latencyMs: number | null, scores: unknown, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } };

export type WebRegressionQueryVariables = Exact<{
  experimentId: string;
}>;


export type WebRegressionQuery = { regression: { experiment: { id: string, agent: string, model: string | null, status: ExperimentStatus, done: number, total: number, regression: boolean, evaluators: Array<string>, createdAt: string, dataset: { id: string, name: string } }, examples: Array<{ ord: number, verdict: RegressionVerdict | null, example: { input: string }, result: { status: ExperimentResultStatus, error: unknown }, original: { output: string | null, toolCalls: unknown, latencyMs: number | null, scores: unknown, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } }, candidate: { output: string | null, toolCalls: unknown, latencyMs: number | null, scores: unknown, usage: { inputTokens: number, outputTokens: number, requests: number, estimated: boolean } } | null, comparison: { textChanged: boolean, text: Array<{ op: ChangeOp, text: string }>, toolCalls: Array<{ op: ChangeOp, name: string, changedArguments: Array<string>, argumentsA: unknown, argumentsB: unknown, resultChanged: boolean }> } | null }>, summary: { total: number, finished: number, improved: number, regressed: number, unchanged: number, tokensA: number, tokensB: number, tokensDelta: number, latencyMsA: number, latencyMsB: number, latencyMsDelta: number } } };

export type WebInboundEmailsQueryVariables = Exact<{
  status?: InboundEmailStatus | null | undefined;
}>;


export type WebInboundEmailsQuery = { inboundEmails:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'InboundEmailsSuccess', data: { edges: Array<{ node: { id: string, from: string, subject: string | null, route: string, profile: string | null, status: InboundEmailStatus, escalationReason: string | null, createdAt: string } }> } }
   };

export type WebInboundEmailQueryVariables = Exact<{
  id: string;
}>;


export type WebInboundEmailQuery = { inboundEmail: { id: string, from: string, fromName: string | null, to: string | null, subject: string | null, text: string, route: string, rule: string | null, profile: string | null, status: InboundEmailStatus, escalationReason: string | null, sessionId: string | null, turnId: string | null, createdAt: string, jobs: Array<{ id: string, kind: string, status: JobStatus, attempts: number, error: unknown }>, events: Array<{ kind: string, detail: unknown, createdAt: string }>, drafts: Array<{ id: string, to: string, subject: string, body: string, status: EmailDraftStatus, author: string }>, replies: Array<{ to: string, subject: string, messageId: string, status: SentReplyStatus, sentAt: string }> } | null };

export type WebUpdateEmailDraftMutationVariables = Exact<{
  id: string;
  subject?: string | null | undefined;
  body?: string | null | undefined;
}>;


export type WebUpdateEmailDraftMutation = { updateEmailDraft:
    | { __typename: 'ForbiddenError', message: string }
    | { __typename: 'NotFoundError', message: string }
    | { __typename: 'UpdateEmailDraftSuccess' }
    | { __typename: 'ValidationError', message: string }
   };

export type WebSendEmailDraftMutationVariables = Exact<{
  id: string;
}>;


export type WebSendEmailDraftMutation = { sendEmailDraft:
    | { __typename: 'ForbiddenError', message: string }
    | { __typename: 'NotFoundError', message: string }
    | { __typename: 'SendEmailDraftSuccess' }
    | { __typename: 'ValidationError', message: string }
   };

export type WebDiscardEmailDraftMutationVariables = Exact<{
  id: string;
}>;


export type WebDiscardEmailDraftMutation = { discardEmailDraft:
    | { __typename: 'DiscardEmailDraftSuccess' }
    | { __typename: 'ForbiddenError', message: string }
    | { __typename: 'NotFoundError', message: string }
    | { __typename: 'ValidationError', message: string }
   };

export type WebResolveEmailEscalationMutationVariables = Exact<{
  id: string;
  note?: string | null | undefined;
}>;


export type WebResolveEmailEscalationMutation = { resolveEmailEscalation:
    | { __typename: 'ForbiddenError', message: string }
    | { __typename: 'NotFoundError', message: string }
    | { __typename: 'ResolveEmailEscalationSuccess' }
    | { __typename: 'ValidationError', message: string }
   };

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
export const WebErrorFragmentDoc = new TypedDocumentString(`
    fragment WebError on Error {
  __typename
  code
  message
}
    `, {"fragmentName":"WebError"}) as unknown as TypedDocumentString<WebErrorFragment, unknown>;
export const WebSessionFragmentDoc = new TypedDocumentString(`
    fragment WebSession on Session {
  id
  name
  agent
  updatedAt
}
    `, {"fragmentName":"WebSession"}) as unknown as TypedDocumentString<WebSessionFragment, unknown>;
export const WebSourceFragmentDoc = new TypedDocumentString(`
    fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}
    `, {"fragmentName":"WebSource"}) as unknown as TypedDocumentString<WebSourceFragment, unknown>;
export const StepFieldsFragmentDoc = new TypedDocumentString(`
    fragment StepFields on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on SourcesEvent {
    sources {
      ...WebSource
    }
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    sources {
      ...WebSource
    }
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
  }
  ... on ApprovalNeededEvent {
    approvalId
    toolCallId
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
  ... on ResumeEvent {
    approvalId
  }
}
    fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}`, {"fragmentName":"StepFields"}) as unknown as TypedDocumentString<StepFieldsFragment, unknown>;
export const WebEventFragmentDoc = new TypedDocumentString(`
    fragment WebEvent on AgentEvent {
  ...StepFields
  ... on ChildEvent {
    childTurnId
    childAgent
    path
    event {
      ...StepFields
    }
  }
}
    fragment StepFields on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on SourcesEvent {
    sources {
      ...WebSource
    }
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    sources {
      ...WebSource
    }
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
  }
  ... on ApprovalNeededEvent {
    approvalId
    toolCallId
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
  ... on ResumeEvent {
    approvalId
  }
}
fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}`, {"fragmentName":"WebEvent"}) as unknown as TypedDocumentString<WebEventFragment, unknown>;
export const WebTurnFragmentDoc = new TypedDocumentString(`
    fragment WebTurn on Turn {
  id
  status
  agent
  model
  startedAt
  lastSeq
  events(first: 5000) {
    ...WebEvent
  }
}
    fragment StepFields on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on SourcesEvent {
    sources {
      ...WebSource
    }
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    sources {
      ...WebSource
    }
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
  }
  ... on ApprovalNeededEvent {
    approvalId
    toolCallId
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
  ... on ResumeEvent {
    approvalId
  }
}
fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}
fragment WebEvent on AgentEvent {
  ...StepFields
  ... on ChildEvent {
    childTurnId
    childAgent
    path
    event {
      ...StepFields
    }
  }
}`, {"fragmentName":"WebTurn"}) as unknown as TypedDocumentString<WebTurnFragment, unknown>;
export const WebPendingApprovalFragmentDoc = new TypedDocumentString(`
    fragment WebPendingApproval on Approval {
  id
  toolName
  arguments
  agentPath
  createdAt
  session {
    id
    name
  }
  turn {
    id
  }
}
    `, {"fragmentName":"WebPendingApproval"}) as unknown as TypedDocumentString<WebPendingApprovalFragment, unknown>;
export const InspectEventFragmentDoc = new TypedDocumentString(`
    fragment InspectEvent on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    at
    agent
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    result
    isError
  }
  ... on ChildEvent {
    childTurnId
    childAgent
    event {
      __typename
      ... on ToolCallEvent {
        toolCallId
        name
        arguments
      }
      ... on ToolResultEvent {
        toolCallId
        result
        isError
      }
      ... on FinalEvent {
        status
      }
    }
  }
}
    `, {"fragmentName":"InspectEvent"}) as unknown as TypedDocumentString<InspectEventFragment, unknown>;
export const InspectCallFragmentDoc = new TypedDocumentString(`
    fragment InspectCall on LlmCall {
  iteration
  model
  provider
  latencyMs
  createdAt
  finishReason
  error
  request
  usage {
    inputTokens
    outputTokens
    estimated
  }
}
    `, {"fragmentName":"InspectCall"}) as unknown as TypedDocumentString<InspectCallFragment, unknown>;
export const InspectChildFragmentDoc = new TypedDocumentString(`
    fragment InspectChild on Turn {
  id
  agent
  status
  startedAt
  finishedAt
  llmCalls {
    ...InspectCall
  }
}
    fragment InspectCall on LlmCall {
  iteration
  model
  provider
  latencyMs
  createdAt
  finishReason
  error
  request
  usage {
    inputTokens
    outputTokens
    estimated
  }
}`, {"fragmentName":"InspectChild"}) as unknown as TypedDocumentString<InspectChildFragment, unknown>;
export const WebComparedTurnFragmentDoc = new TypedDocumentString(`
    fragment WebComparedTurn on ComparedTurn {
  text
  latencyMs
  modelCalls
  models
  usage {
    inputTokens
    outputTokens
    requests
    estimated
  }
  turn {
    id
    agent
    status
    session {
      id
    }
  }
}
    `, {"fragmentName":"WebComparedTurn"}) as unknown as TypedDocumentString<WebComparedTurnFragment, unknown>;
export const WebExperimentHeadFragmentDoc = new TypedDocumentString(`
    fragment WebExperimentHead on Experiment {
  id
  agent
  model
  status
  done
  total
  regression
  evaluators
  createdAt
  dataset {
    id
    name
  }
}
    `, {"fragmentName":"WebExperimentHead"}) as unknown as TypedDocumentString<WebExperimentHeadFragment, unknown>;
export const WebRegressionSideFragmentDoc = new TypedDocumentString(`
    fragment WebRegressionSide on RegressionSide {
  output
  toolCalls
  latencyMs
  scores
  usage {
    inputTokens
    outputTokens
    requests
    estimated
  }
}
    `, {"fragmentName":"WebRegressionSide"}) as unknown as TypedDocumentString<WebRegressionSideFragment, unknown>;
export const WebViewerDocument = new TypedDocumentString(`
    query WebViewer {
  viewer {
    userId
    tenantId
    authMode
    defaultModel
    isAdmin
  }
}
    `) as unknown as TypedDocumentString<WebViewerQuery, WebViewerQueryVariables>;
export const WebAgentsDocument = new TypedDocumentString(`
    query WebAgents {
  agents(first: 100, audience: CHAT) {
    edges {
      node {
        name
        description
        model
        tools {
          name
          requiresApproval
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WebAgentsQuery, WebAgentsQueryVariables>;
export const WebSessionsDocument = new TypedDocumentString(`
    query WebSessions {
  sessions(first: 100) {
    edges {
      node {
        ...WebSession
      }
    }
  }
}
    fragment WebSession on Session {
  id
  name
  agent
  updatedAt
}`) as unknown as TypedDocumentString<WebSessionsQuery, WebSessionsQueryVariables>;
export const WebConversationDocument = new TypedDocumentString(`
    query WebConversation($id: ID!) {
  session(id: $id) {
    ...WebSession
    createdAt
    document {
      id
      title
    }
    corpus {
      id
      name
    }
    messages(last: 100) {
      edges {
        node {
          id
          type
          content
          createdAt
        }
      }
    }
    turns(last: 30) {
      edges {
        node {
          ...WebTurn
        }
      }
    }
  }
}
    fragment WebSession on Session {
  id
  name
  agent
  updatedAt
}
fragment StepFields on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on SourcesEvent {
    sources {
      ...WebSource
    }
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    sources {
      ...WebSource
    }
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
  }
  ... on ApprovalNeededEvent {
    approvalId
    toolCallId
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
  ... on ResumeEvent {
    approvalId
  }
}
fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}
fragment WebEvent on AgentEvent {
  ...StepFields
  ... on ChildEvent {
    childTurnId
    childAgent
    path
    event {
      ...StepFields
    }
  }
}
fragment WebTurn on Turn {
  id
  status
  agent
  model
  startedAt
  lastSeq
  events(first: 5000) {
    ...WebEvent
  }
}`) as unknown as TypedDocumentString<WebConversationQuery, WebConversationQueryVariables>;
export const WebTurnEventsDocument = new TypedDocumentString(`
    query WebTurnEvents($id: ID!, $after: Int) {
  turn(id: $id) {
    id
    status
    events(after: $after, first: 5000) {
      ...WebEvent
    }
  }
}
    fragment StepFields on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on SourcesEvent {
    sources {
      ...WebSource
    }
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    sources {
      ...WebSource
    }
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
  }
  ... on ApprovalNeededEvent {
    approvalId
    toolCallId
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
  ... on ResumeEvent {
    approvalId
  }
}
fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}
fragment WebEvent on AgentEvent {
  ...StepFields
  ... on ChildEvent {
    childTurnId
    childAgent
    path
    event {
      ...StepFields
    }
  }
}`) as unknown as TypedDocumentString<WebTurnEventsQuery, WebTurnEventsQueryVariables>;
export const WebCreateSessionDocument = new TypedDocumentString(`
    mutation WebCreateSession($input: CreateSessionInput!) {
  createSession(input: $input) {
    __typename
    ... on CreateSessionSuccess {
      session {
        ...WebSession
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}
fragment WebSession on Session {
  id
  name
  agent
  updatedAt
}`) as unknown as TypedDocumentString<WebCreateSessionMutation, WebCreateSessionMutationVariables>;
export const WebRenameSessionDocument = new TypedDocumentString(`
    mutation WebRenameSession($id: ID!, $name: String!) {
  renameSession(id: $id, name: $name) {
    __typename
    ... on RenameSessionSuccess {
      session {
        ...WebSession
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}
fragment WebSession on Session {
  id
  name
  agent
  updatedAt
}`) as unknown as TypedDocumentString<WebRenameSessionMutation, WebRenameSessionMutationVariables>;
export const WebDeleteSessionDocument = new TypedDocumentString(`
    mutation WebDeleteSession($id: ID!) {
  deleteSession(id: $id) {
    __typename
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebDeleteSessionMutation, WebDeleteSessionMutationVariables>;
export const WebSendMessageDocument = new TypedDocumentString(`
    mutation WebSendMessage($input: SendMessageInput!) {
  sendMessage(input: $input) {
    __typename
    ... on SendMessagePayload {
      session {
        ...WebSession
      }
      userMessage {
        id
        type
        content
        createdAt
      }
      turn {
        id
        status
        agent
        model
        startedAt
        lastSeq
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}
fragment WebSession on Session {
  id
  name
  agent
  updatedAt
}`) as unknown as TypedDocumentString<WebSendMessageMutation, WebSendMessageMutationVariables>;
export const WebRegenerateDocument = new TypedDocumentString(`
    mutation WebRegenerate($turnId: ID!) {
  regenerate(turnId: $turnId) {
    __typename
    ... on SendMessagePayload {
      turn {
        id
        status
        agent
        model
        startedAt
        lastSeq
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebRegenerateMutation, WebRegenerateMutationVariables>;
export const WebCancelTurnDocument = new TypedDocumentString(`
    mutation WebCancelTurn($id: ID!) {
  cancelTurn(id: $id) {
    __typename
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebCancelTurnMutation, WebCancelTurnMutationVariables>;
export const WebDecideApprovalDocument = new TypedDocumentString(`
    mutation WebDecideApproval($id: ID!, $approve: Boolean!, $reason: String) {
  decideApproval(id: $id, approve: $approve, reason: $reason) {
    __typename
    ... on DecideApprovalSuccess {
      approval {
        id
        status
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebDecideApprovalMutation, WebDecideApprovalMutationVariables>;
export const WebFollowTurnDocument = new TypedDocumentString(`
    subscription WebFollowTurn($turnId: ID!, $after: Int) {
  turnEvents(turnId: $turnId, after: $after) {
    ...WebEvent
  }
}
    fragment StepFields on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    agent
    depth
  }
  ... on ContentEvent {
    delta
  }
  ... on ThoughtEvent {
    text
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    name
    result
    isError
  }
  ... on ActionEvent {
    actionType
    payload
  }
  ... on SourcesEvent {
    sources {
      ...WebSource
    }
  }
  ... on ErrorEvent {
    code
    message
  }
  ... on FinalEvent {
    status
    content
    sources {
      ...WebSource
    }
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
  }
  ... on ApprovalNeededEvent {
    approvalId
    toolCallId
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
  ... on ResumeEvent {
    approvalId
  }
}
fragment WebSource on Source {
  key
  title
  uri
  snippet
  score
  entityType
}
fragment WebEvent on AgentEvent {
  ...StepFields
  ... on ChildEvent {
    childTurnId
    childAgent
    path
    event {
      ...StepFields
    }
  }
}`) as unknown as TypedDocumentString<WebFollowTurnSubscription, WebFollowTurnSubscriptionVariables>;
export const WebRemQueryDocument = new TypedDocumentString(`
    query WebRemQuery($query: String!) {
  remQuery(query: $query) {
    mode
    tookMs
    rows
    truncated
    hits {
      id
      key
      entityType
      name
      summary
      content
      score
      path
      relType
    }
  }
}
    `) as unknown as TypedDocumentString<WebRemQueryQuery, WebRemQueryQueryVariables>;
export const WebEntityDocument = new TypedDocumentString(`
    query WebEntity($key: String!) {
  entity(key: $key) {
    key
    name
    entityType
    summary
    content
    tags
    uri
    extractedData
    updatedAt
    graphEdges {
      dst
      relType
      weight
      target {
        key
        name
        entityType
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WebEntityQuery, WebEntityQueryVariables>;
export const WebPendingApprovalsDocument = new TypedDocumentString(`
    query WebPendingApprovals {
  approvals(status: PENDING, first: 100) {
    edges {
      node {
        ...WebPendingApproval
      }
    }
  }
}
    fragment WebPendingApproval on Approval {
  id
  toolName
  arguments
  agentPath
  createdAt
  session {
    id
    name
  }
  turn {
    id
  }
}`) as unknown as TypedDocumentString<WebPendingApprovalsQuery, WebPendingApprovalsQueryVariables>;
export const WebApprovalsChangedDocument = new TypedDocumentString(`
    subscription WebApprovalsChanged {
  approvalsChanged {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<WebApprovalsChangedSubscription, WebApprovalsChangedSubscriptionVariables>;
export const WebInspectTurnDocument = new TypedDocumentString(`
    query WebInspectTurn($id: ID!) {
  turn(id: $id) {
    id
    agent
    status
    startedAt
    finishedAt
    traceId
    usage {
      inputTokens
      outputTokens
      requests
      estimated
    }
    llmCalls {
      ...InspectCall
    }
    children {
      ...InspectChild
      children {
        ...InspectChild
      }
    }
    events(first: 5000) {
      ...InspectEvent
    }
    approvals {
      id
      toolName
      status
      createdAt
      decidedAt
      decidedBy
    }
  }
}
    fragment InspectEvent on AgentEvent {
  __typename
  ... on TurnEvent {
    seq
    at
    agent
  }
  ... on ToolCallEvent {
    toolCallId
    name
    arguments
  }
  ... on ToolResultEvent {
    toolCallId
    result
    isError
  }
  ... on ChildEvent {
    childTurnId
    childAgent
    event {
      __typename
      ... on ToolCallEvent {
        toolCallId
        name
        arguments
      }
      ... on ToolResultEvent {
        toolCallId
        result
        isError
      }
      ... on FinalEvent {
        status
      }
    }
  }
}
fragment InspectCall on LlmCall {
  iteration
  model
  provider
  latencyMs
  createdAt
  finishReason
  error
  request
  usage {
    inputTokens
    outputTokens
    estimated
  }
}
fragment InspectChild on Turn {
  id
  agent
  status
  startedAt
  finishedAt
  llmCalls {
    ...InspectCall
  }
}`) as unknown as TypedDocumentString<WebInspectTurnQuery, WebInspectTurnQueryVariables>;
export const WebIngestFileDocument = new TypedDocumentString(`
    mutation WebIngestFile($file: File!, $progressId: String) {
  ingestFile(file: $file, progressId: $progressId) {
    __typename
    ... on IngestFileSuccess {
      chunks
      unchanged
      resource {
        key
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebIngestFileMutation, WebIngestFileMutationVariables>;
export const WebIngestProgressDocument = new TypedDocumentString(`
    subscription WebIngestProgress($progressId: String!) {
  ingestProgress(progressId: $progressId) {
    stage
    chunks
  }
}
    `) as unknown as TypedDocumentString<WebIngestProgressSubscription, WebIngestProgressSubscriptionVariables>;
export const WebForkSessionDocument = new TypedDocumentString(`
    mutation WebForkSession($sessionId: ID!, $atMessageId: ID!) {
  forkSession(sessionId: $sessionId, atMessageId: $atMessageId) {
    __typename
    ... on ForkSessionSuccess {
      session {
        id
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebForkSessionMutation, WebForkSessionMutationVariables>;
export const WebTurnAnswerDocument = new TypedDocumentString(`
    query WebTurnAnswer($id: ID!) {
  turn(id: $id) {
    finalMessage {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<WebTurnAnswerQuery, WebTurnAnswerQueryVariables>;
export const WebReplayTurnDocument = new TypedDocumentString(`
    mutation WebReplayTurn($turnId: ID!, $overrides: ReplayOverridesInput) {
  replayTurn(turnId: $turnId, overrides: $overrides) {
    __typename
    ... on SendMessagePayload {
      session {
        id
      }
      turn {
        id
        status
        agent
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebReplayTurnMutation, WebReplayTurnMutationVariables>;
export const WebCompareTurnsDocument = new TypedDocumentString(`
    query WebCompareTurns($a: ID!, $b: ID!) {
  compareTurns(a: $a, b: $b) {
    a {
      ...WebComparedTurn
    }
    b {
      ...WebComparedTurn
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
    }
    sources {
      added {
        key
      }
      removed {
        key
      }
    }
  }
}
    fragment WebComparedTurn on ComparedTurn {
  text
  latencyMs
  modelCalls
  models
  usage {
    inputTokens
    outputTokens
    requests
    estimated
  }
  turn {
    id
    agent
    status
    session {
      id
    }
  }
}`) as unknown as TypedDocumentString<WebCompareTurnsQuery, WebCompareTurnsQueryVariables>;
export const WebLibraryDocument = new TypedDocumentString(`
    query WebLibrary {
  corpora(first: 50) {
    edges {
      node {
        id
        name
        description
        documents(first: 100) {
          edges {
            node {
              id
              title
            }
          }
        }
      }
    }
  }
  documents(first: 100) {
    edges {
      node {
        id
        title
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WebLibraryQuery, WebLibraryQueryVariables>;
export const WebDocumentDocument = new TypedDocumentString(`
    query WebDocument($id: ID!, $corpusId: ID!, $withCorpus: Boolean!) {
  document(id: $id) {
    id
    title
    pageCount
    text
    summary
    summaryVersions {
      version
      authorId
      agentName
      createdAt
    }
    annotations(corpusId: $corpusId) @include(if: $withCorpus) {
      id
      label
      start
      end
    }
    notes(corpusId: $corpusId) @include(if: $withCorpus) {
      id
      title
      content
      revisions {
        version
        content
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WebDocumentQuery, WebDocumentQueryVariables>;
export const WebSummaryDiffDocument = new TypedDocumentString(`
    query WebSummaryDiff($id: ID!, $from: Int!, $to: Int!) {
  document(id: $id) {
    summaryDiff(from: $from, to: $to)
  }
}
    `) as unknown as TypedDocumentString<WebSummaryDiffQuery, WebSummaryDiffQueryVariables>;
export const WebExperimentsDocument = new TypedDocumentString(`
    query WebExperiments {
  experiments(first: 50) {
    edges {
      node {
        ...WebExperimentHead
      }
    }
  }
}
    fragment WebExperimentHead on Experiment {
  id
  agent
  model
  status
  done
  total
  regression
  evaluators
  createdAt
  dataset {
    id
    name
  }
}`) as unknown as TypedDocumentString<WebExperimentsQuery, WebExperimentsQueryVariables>;
export const WebExperimentProgressDocument = new TypedDocumentString(`
    subscription WebExperimentProgress($id: ID!) {
  experimentProgress(id: $id) {
    id
    status
    done
    total
  }
}
    `) as unknown as TypedDocumentString<WebExperimentProgressSubscription, WebExperimentProgressSubscriptionVariables>;
export const WebRegressionDocument = new TypedDocumentString(`
    query WebRegression($experimentId: ID!) {
  regression(experimentId: $experimentId) {
    experiment {
      ...WebExperimentHead
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
        ...WebRegressionSide
      }
      candidate {
        ...WebRegressionSide
      }
      comparison {
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
    fragment WebExperimentHead on Experiment {
  id
  agent
  model
  status
  done
  total
  regression
  evaluators
  createdAt
  dataset {
    id
    name
  }
}
fragment WebRegressionSide on RegressionSide {
  output
  toolCalls
  latencyMs
  scores
  usage {
    inputTokens
    outputTokens
    requests
    estimated
  }
}`) as unknown as TypedDocumentString<WebRegressionQuery, WebRegressionQueryVariables>;
export const WebInboundEmailsDocument = new TypedDocumentString(`
    query WebInboundEmails($status: InboundEmailStatus) {
  inboundEmails(first: 50, status: $status) {
    __typename
    ... on InboundEmailsSuccess {
      data {
        edges {
          node {
            id
            from
            subject
            route
            profile
            status
            escalationReason
            createdAt
          }
        }
      }
    }
    ...WebError
  }
}
    fragment WebError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<WebInboundEmailsQuery, WebInboundEmailsQueryVariables>;
export const WebInboundEmailDocument = new TypedDocumentString(`
    query WebInboundEmail($id: ID!) {
  inboundEmail(id: $id) {
    id
    from
    fromName
    to
    subject
    text
    route
    rule
    profile
    status
    escalationReason
    sessionId
    turnId
    createdAt
    jobs {
      id
      kind
      status
      attempts
      error
    }
    events {
      kind
      detail
      createdAt
    }
    drafts {
      id
      to
      subject
      body
      status
      author
    }
    replies {
      to
      subject
      messageId
      status
      sentAt
    }
  }
}
    `) as unknown as TypedDocumentString<WebInboundEmailQuery, WebInboundEmailQueryVariables>;
export const WebUpdateEmailDraftDocument = new TypedDocumentString(`
    mutation WebUpdateEmailDraft($id: ID!, $subject: String, $body: String) {
  updateEmailDraft(id: $id, subject: $subject, body: $body) {
    __typename
    ... on Error {
      message
    }
  }
}
    `) as unknown as TypedDocumentString<WebUpdateEmailDraftMutation, WebUpdateEmailDraftMutationVariables>;
export const WebSendEmailDraftDocument = new TypedDocumentString(`
    mutation WebSendEmailDraft($id: ID!) {
  sendEmailDraft(id: $id) {
    __typename
    ... on Error {
      message
    }
  }
}
    `) as unknown as TypedDocumentString<WebSendEmailDraftMutation, WebSendEmailDraftMutationVariables>;
export const WebDiscardEmailDraftDocument = new TypedDocumentString(`
    mutation WebDiscardEmailDraft($id: ID!) {
  discardEmailDraft(id: $id) {
    __typename
    ... on Error {
      message
    }
  }
}
    `) as unknown as TypedDocumentString<WebDiscardEmailDraftMutation, WebDiscardEmailDraftMutationVariables>;
export const WebResolveEmailEscalationDocument = new TypedDocumentString(`
    mutation WebResolveEmailEscalation($id: ID!, $note: String) {
  resolveEmailEscalation(id: $id, note: $note) {
    __typename
    ... on Error {
      message
    }
  }
}
    `) as unknown as TypedDocumentString<WebResolveEmailEscalationMutation, WebResolveEmailEscalationMutationVariables>;