import type { CompletionEnd } from '../../events/turn-completion.js';
import { encodeGlobalID } from '../global-ids.js';

/** How a turn's answer ended, unless it failed. */
export type AnsweredEnd = Exclude<CompletionEnd, { kind: 'failed' }>;

/**
 * The `remgraph` member of an answer: where the turn lives in GraphQL, and what a paused turn waits
 * for (ids for `decideApproval`).
 */
export function turnExtension(sessionId: string, turnId: string, end: AnsweredEnd) {
  return {
    session_id: encodeGlobalID('Session', sessionId),
    turn_id: encodeGlobalID('Turn', turnId),
    status: end.kind === 'answered' ? end.status : end.kind === 'tool_calls' ? 'TOOL_CALLS' : 'AWAITING_APPROVAL',
    ...(end.kind === 'awaiting_approval'
      ? { approvals: end.approvals.map((a) => ({ id: encodeGlobalID('Approval', a.id), tool: a.toolName, arguments: a.arguments, agent_path: a.agentPath })) }
      : {}),
  };
}

/**
 * A failed turn is one request's whole answer, so trying the request again replays the failure: it
 * is a 400, which no SDK retries (LangChain retries every other status but 401 to 407 and 409).
 * Only a turn whose server stopped answers 503, which SDKs retry: the retry joins the same turn,
 * which another server may have taken over.
 */
export function failureStatus(end: Extract<CompletionEnd, { kind: 'failed' }>): number {
  return end.status === 'INTERRUPTED' ? 503 : 400;
}
