import type { TerminalStatus } from './turn-status.js';

/**
 * The events of a turn, one union discriminated on `type`. Each is a plain serialisable object:
 * it is stored in turn_events, published on pubsub and mapped 1:1 onto the GraphQL AgentEvent union.
 */
export interface Source {
  /** REM key, URI or citation label. */
  key: string;
  entityType?: string | null;
  title?: string | null;
  snippet?: string | null;
  score?: number | null;
  uri?: string | null;
  /** The page of a PDF chunk; null otherwise. */
  page?: number | null;
  /** A document's passage: the document (row id), the corpus searched within, the annotation label searched for. */
  documentId?: string | null;
  corpusId?: string | null;
  annotationLabel?: string | null;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  /** Model calls made. */
  requests: number;
  /** Some of the counts are our own estimate: a model call was cut short, or its provider reported no usage. */
  estimated?: boolean;
}

export type AgentEventBody =
  | { type: 'thought'; text: string }
  /** A model call's request body exactly as sent, just before the call: only in turns started with `debug`. */
  | { type: 'model_request'; iteration: number; model: string; body: unknown }
  | { type: 'content'; delta: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'tool_call'; toolCallId: string; name: string; arguments: unknown; iteration: number }
  | { type: 'tool_result'; toolCallId: string; name: string; result: unknown; isError: boolean }
  | { type: 'action'; actionType: string; payload: Record<string, unknown> }
  | { type: 'approval_needed'; approvalId: string; toolCallId: string; name: string; arguments: unknown; agentPath: string[] }
  | { type: 'approval_result'; approvalId: string; approved: boolean; reason: string | null; decidedBy: string | null }
  | { type: 'resume'; approvalId: string }
  | { type: 'child'; childTurnId: string; childAgent: string; path: string[]; event: AgentEvent }
  | { type: 'final'; status: TerminalStatus; content: string | null; sources: Source[]; usage: UsageTotals }
  | { type: 'error'; code: string; message: string; details?: Record<string, unknown> };

interface EventEnvelope {
  /** Position in the turn's log: 1, 2, 3, … with no gaps. */
  seq: number;
  turnId: string;
  /** ISO timestamp. */
  at: string;
  agent: string;
  depth: number;
}

export type AgentEvent = EventEnvelope & AgentEventBody;
