import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Turn } from '../../db/generated/client.js';
import { ValidationError } from '../../errors.js';
import { turnCompletion, type CompletionEnd, type CompletionPart } from '../../events/turn-completion.js';
import { encodeGlobalID } from '../global-ids.js';
import { forgetRequest, rememberRequest, retriedTurn, turnRequestKey } from '../../turns/turn-requests.js';
import type { SendMessageInput } from '../../turns/send-input.js';
import { asRequestError, type CompletionRequest } from './completion-request.js';
import type { OpenAIRoutesDeps } from './openai-deps.js';
import { openAIError } from './errors.js';
import { failureStatus } from './turn-extension.js';
import { sendJson } from '../json-body.js';

type TurnRow = Pick<Turn, 'id' | 'sessionId' | 'rootId' | 'status' | 'lastSeq'>;

export interface RequestedTurn {
  turn: TurnRow;
  /** Only the validated answer may be sent (see below). */
  validatedOnly: boolean;
  /** To await with the way the answer ended, just before it is written (see `requestedTurn`). */
  answering(end: CompletionEnd): Promise<void>;
}

/**
 * The turn that answers a completion request: the one an earlier attempt of the same request
 * started, if the client may be retrying it, or else a new one. A client retries a request whose
 * answer it did not get: its connection dropped before the whole answer was written, or the answer
 * was a 503 (the server running the turn stopped); a retry then joins the turn while it runs, or
 * replays its answer. A request with an Idempotency-Key is always answered by the same turn. The same
 * message sent again once answered, or sent twice at once, is not a retry and gets a turn of its own.
 * `route` tells the APIs' requests apart; `asError` names a refusal of the turn service by the API's
 * own fields.
 */
export async function requestedTurn(
  deps: OpenAIRoutesDeps,
  ctx: AgentContext,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  body: unknown,
  request: CompletionRequest,
  options: { via: string; ephemeral?: boolean; asError?: (error: ValidationError) => ValidationError },
): Promise<RequestedTurn> {
  const { spec } = await deps.agents.load(ctx, request.agent);
  // Clients send max_tokens of their own choosing: more than the agent allows is the agent's limit, not an error.
  const { maxTokens } = request.overrides;
  const overrides = {
    ...request.overrides,
    ...toolsFor(spec.tools, request.overrides),
    maxTokens: maxTokens != null && spec.maxTokens !== undefined ? Math.min(maxTokens, spec.maxTokens) : maxTokens,
  };
  // A JSON answer may be repaired once after it was validated, so only the validated answer is sent
  // (in one piece when streaming): a client must never get the rejected attempt joined to it.
  const validatedOnly = Boolean(spec.structuredOutput || overrides.responseFormat);
  const key = turnRequestKey(ctx, route, {
    idempotencyKey: header(req, 'idempotency-key'),
    sessionHeader: header(req, 'x-session-id'),
    body: JSON.stringify(body),
  });

  const earlier = await retriedTurn(deps.sql, key);
  const turn = earlier ?? (await start());
  const remember = () => rememberRequest(deps.sql, key, turn.id);
  if (key.explicit) {
    if (!earlier) await remember();
  } else {
    res.once('close', () => {
      if (!res.writableFinished) remember().catch((error: unknown) => deps.logger.warn({ err: error }, 'could not record an undelivered answer'));
    });
  }
  // Just before the answer is written: a 503 is retried, so the retry must find the turn; a retry
  // getting its answer ends the retrying, so the same request sent later is a new one.
  const answering = async (end: CompletionEnd) => {
    if (key.explicit) return;
    if (end.kind === 'failed' && end.status === 'INTERRUPTED') await remember();
    else if (earlier) await forgetRequest(deps.sql, key, turn.id);
  };
  return { turn, validatedOnly, answering };

  async function start(): Promise<TurnRow> {
    const input: SendMessageInput = {
      sessionId: request.sessionId,
      content: request.content,
      toolResults: request.toolResults,
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
    return turn;
  }
}

/**
 * A request's function tools split by whose they are: one named like one of the agent's tools, with
 * parameters or without (SDKs that require them send empty ones), restricts the turn to the agent's
 * tools so named; any other is the client's own (one without parameters takes no arguments).
 */
function toolsFor(agentTools: { name: string }[], overrides: CompletionRequest['overrides']): Pick<CompletionRequest['overrides'], 'tools' | 'clientTools'> {
  const agents = new Set(agentTools.map((tool) => tool.name));
  const named = overrides.tools ?? [];
  const declared = overrides.clientTools ?? [];
  const own = [...named, ...declared.map((tool) => tool.name)].filter((name) => agents.has(name));
  const clientTools = [
    ...declared.filter((tool) => !agents.has(tool.name)),
    ...named.filter((name) => !agents.has(name)).map((name) => ({ name, parameters: { type: 'object', properties: {} } })),
  ];
  return {
    // Naming none of the agent's tools restricts none of them (an empty list from tool_choice "none" offers none).
    tools: own.length ? own : named.length || declared.length ? null : overrides.tools,
    clientTools: clientTools.length ? clientTools : null,
  };
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Follows a requested turn for its HTTP answer: the turn's completion parts, which stop when the
 * client leaves (the turn goes on: it is in the session, visible over GraphQL), and the headers that
 * name its session and turn.
 */
export function followTurn(
  deps: OpenAIRoutesDeps,
  turn: Parameters<typeof turnCompletion>[1],
  res: ServerResponse,
): { parts: AsyncGenerator<CompletionPart>; headers: Record<string, string> } {
  const parts = turnCompletion(deps, turn);
  res.once('close', () => void parts.return(undefined));
  return { parts, headers: { 'x-session-id': encodeGlobalID('Session', turn.sessionId), 'x-turn-id': encodeGlobalID('Turn', turn.id) } };
}

/**
 * The answer to a client that did not ask for a stream, once the turn ends: its whole text as
 * `render` shapes it, or an OpenAI error for a failed turn (a status the SDKs do not retry).
 */
export async function answerWhole(
  parts: AsyncIterable<CompletionPart>,
  answering: RequestedTurn['answering'],
  res: ServerResponse,
  headers: Record<string, string>,
  render: (text: string, end: Exclude<CompletionEnd, { kind: 'failed' }>) => unknown,
): Promise<void> {
  let text = '';
  for await (const part of parts) {
    if (part.type === 'delta') {
      text += part.text;
      continue;
    }
    const end = part.end;
    await answering(end);
    if (end.kind !== 'failed') return sendJson(res, 200, render(text, end), headers);
    const status = failureStatus(end);
    return sendJson(res, status, openAIError(status, end.message, end.code, null, 'server_error'), headers);
  }
}
