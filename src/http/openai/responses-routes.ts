import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Turn } from '../../db/generated/client.js';
import { visibleTo } from '../../auth/scope.js';
import { NotFoundError } from '../../errors.js';
import type { UsageTotals } from '../../events/agent-event.js';
import type { HandedBackCall } from '../../events/turn-completion.js';
import { readJsonBody, sendJson } from '../json-body.js';
import type { OpenAIRoutesDeps } from './openai-deps.js';
import { followTurn, requestedTurn, answerWhole } from './requested-turn.js';
import { endState, responseObject, turnIdOf, type ResponseBase, type ResponseState } from './response-object.js';
import { ResponseEventStream } from './response-stream.js';
import { asResponsesError, parseResponsesRequest } from './responses-request.js';
import { handedBackCalls } from '../../turns/tool-results.js';

export const RESPONSES = '/v1/responses';

/**
 * `POST /v1/responses`: the Responses API over a turn, like chat completions (same agents as models,
 * sessions, quotas and errors). `previous_response_id` continues that response's session; `store:
 * false` runs an ephemeral turn. A failed turn is a 400 error body, or `response.failed` in a stream.
 */
export async function createResponse(deps: OpenAIRoutesDeps, ctx: AgentContext, req: IncomingMessage, res: ServerResponse) {
  const body = await readJsonBody(req, res, deps.maxRequestBytes);
  const parsed = parseResponsesRequest(body, ctx);
  const previous = parsed.previousResponseId ? await storedTurn(deps, ctx, parsed.previousResponseId) : null;
  // The session keeps the conversation the previous response belongs to.
  const request = previous ? { ...parsed, sessionId: previous.sessionId, history: null } : parsed;
  const { turn, validatedOnly, answering } = await requestedTurn(deps, ctx, req, res, RESPONSES, body, request, {
    via: 'openai-responses',
    ephemeral: !request.store,
    asError: (error) => asResponsesError(error),
  });
  const base: ResponseBase = {
    turnId: turn.id,
    sessionId: turn.sessionId,
    createdAt: Math.floor(Date.now() / 1000),
    model: request.model,
    previousResponseId: request.previousResponseId,
    store: request.store,
    echo: request.echo,
  };
  const { parts, headers } = followTurn(deps, turn, res);

  if (!request.stream)
    return answerWhole(parts, answering, res, headers, (text, end) =>
      responseObject(base, endState(base, end, validatedOnly && end.kind === 'answered' ? end.content : text)),
    );

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...headers });
  const events = new ResponseEventStream(base, (chunk) => res.write(chunk));
  events.start();
  for await (const part of parts) {
    if (part.type === 'delta') {
      if (!validatedOnly) events.delta(part.text);
      continue;
    }
    await answering(part.end);
    if (validatedOnly && part.end.kind === 'answered') events.delta(part.end.content);
    events.end(part.end);
  }
  res.end();
}

/** `GET /v1/responses/{id}`: a stored response as it stands (in progress, or as its turn ended). */
export async function retrieveResponse(deps: OpenAIRoutesDeps, ctx: AgentContext, _req: IncomingMessage, res: ServerResponse, id: string) {
  const turn = await storedTurn(deps, ctx, id);
  const answer = turn.finalMessageId ? await deps.prisma.message.findUnique({ where: { id: turn.finalMessageId }, select: { content: true } }) : null;
  const base: ResponseBase = {
    turnId: turn.id,
    sessionId: turn.sessionId,
    createdAt: Math.floor(turn.startedAt.getTime() / 1000),
    model: turn.agent,
    previousResponseId: null,
    store: true,
    echo: null,
  };
  // As the create answer had them: the calls handed back, each a function_call item.
  const handed = turn.status === 'TOOL_CALLS' ? await handedBackCalls(deps.prisma, turn.id) : null;
  const calls = handed?.calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
  sendJson(res, 200, responseObject(base, storedState(base, turn, answer?.content ?? handed?.text ?? null, calls)));
}

/** A top-level turn of a stored response the caller can see. */
async function storedTurn(deps: OpenAIRoutesDeps, ctx: AgentContext, responseId: string): Promise<Turn> {
  const turnId = turnIdOf(responseId);
  const turn = turnId ? await deps.prisma.turn.findFirst({ where: { id: turnId, parentId: null, ephemeral: false, ...visibleTo(ctx) } }) : null;
  if (!turn) throw new NotFoundError('Response', responseId);
  return turn;
}

function storedState(base: ResponseBase, turn: Turn, text: string | null, calls?: HandedBackCall[]): ResponseState {
  const usage = turn.usage as Partial<UsageTotals> | null;
  const totals =
    usage?.inputTokens !== undefined ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens ?? 0, requests: usage.requests ?? 0 } : null;
  switch (turn.status) {
    case 'RUNNING':
      return { status: 'in_progress', text };
    case 'AWAITING_APPROVAL':
      return { status: 'incomplete', text, incomplete: 'approval_required' };
    case 'TOOL_CALLS':
      return { status: 'completed', text, usage: totals, calls };
    case 'COMPLETED':
    case 'CANCELLED':
    case 'MAX_ITERATIONS': {
      const end = { kind: 'answered', status: turn.status, content: text ?? '', usage: totals ?? { inputTokens: 0, outputTokens: 0, requests: 0 } } as const;
      return endState(base, end, text ?? '');
    }
    default: {
      const error = (turn.error as { code?: string; message?: string } | null) ?? {};
      return {
        status: 'failed',
        text,
        usage: totals,
        error: { code: error.code ?? turn.status, message: error.message ?? `The turn ended with status ${turn.status}` },
      };
    }
  }
}
