import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Turn } from '../../db/generated/client.js';
import { ValidationError } from '../../errors.js';
import type { CompletionEnd } from '../../events/turn-completion.js';
import { answeredRequest, rememberRequest, retriedTurn, turnRequestKey } from '../../turns/turn-requests.js';
import type { SendMessageInput } from '../../turns/turn-service.js';
import { asRequestError, type CompletionRequest } from './completion-request.js';
import type { OpenAIRoutesDeps } from './openai-deps.js';

type TurnRow = Pick<Turn, 'id' | 'sessionId' | 'rootId' | 'status' | 'lastSeq'>;

export interface RequestedTurn {
  turn: TurnRow;
  /** Only the validated answer may be sent (see below). */
  validatedOnly: boolean;
  /**
   * To await with the way the answer ended, just before it is written: an answer about to reach a
   * client still connected (which then has no reason to retry) is no longer what a request like this
   * one joins. A server that stopped (503) is retried, and the retry joins the turn.
   */
  settle(res: ServerResponse, end: CompletionEnd): Promise<void>;
}

/**
 * The turn that answers a completion request: the one an earlier attempt of the same request
 * started, while that attempt's answer may not have reached the client (a retry joins the turn while
 * it runs, or replays its answer), or else a new one. `route` tells the APIs' requests apart;
 * `asError` names a refusal of the turn service by the API's own fields.
 */
export async function requestedTurn(
  deps: OpenAIRoutesDeps,
  ctx: AgentContext,
  req: IncomingMessage,
  route: string,
  body: unknown,
  request: CompletionRequest,
  options: { via: string; ephemeral?: boolean; asError?: (error: ValidationError) => ValidationError },
): Promise<RequestedTurn> {
  const { spec } = await deps.agents.load(ctx, request.agent);
  // Clients send max_tokens of their own choosing: more than the agent allows is the agent's limit, not an error.
  const { maxTokens } = request.overrides;
  const overrides = { ...request.overrides, maxTokens: maxTokens != null && spec.maxTokens !== undefined ? Math.min(maxTokens, spec.maxTokens) : maxTokens };
  // A JSON answer may be repaired once after it was validated, so only the validated answer is sent
  // (in one piece when streaming): a client must never get the rejected attempt joined to it.
  const validatedOnly = Boolean(spec.structuredOutput || overrides.responseFormat);
  const key = turnRequestKey(ctx, route, {
    idempotencyKey: header(req, 'idempotency-key'),
    sessionHeader: header(req, 'x-session-id'),
    body: JSON.stringify(body),
  });
  const settle = (turnId: string) => async (res: ServerResponse, end: CompletionEnd) => {
    if (res.destroyed || (end.kind === 'failed' && end.status === 'INTERRUPTED')) return;
    await answeredRequest(deps.sql, key, turnId);
  };

  const earlier = await retriedTurn(deps.sql, key);
  if (earlier) return { turn: earlier, validatedOnly, settle: settle(earlier.id) };
  const input: SendMessageInput = {
    sessionId: request.sessionId,
    content: request.content,
    history: request.history,
    agent: request.agent,
    model: request.modelOverride,
    overrides,
    ephemeral: options.ephemeral,
    metadata: { via: options.via },
  };
  const { turn } = await deps.turns.sendMessage({ ...ctx, addedInstruction: request.instruction }, input).catch((error: unknown) => {
    if (!(error instanceof ValidationError)) throw error;
    const named = asRequestError(error);
    throw options.asError ? options.asError(named) : named;
  });
  await rememberRequest(deps.sql, key, turn.id);
  return { turn, validatedOnly, settle: settle(turn.id) };
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
