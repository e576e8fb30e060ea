import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentRegistry } from '../../agents/registry.js';
import type { AgentContext } from '../../auth/agent-context.js';
import { ForbiddenError } from '../../errors.js';
import { readJsonBody, sendJson } from '../json-body.js';
import { parseCompletionRequest, type CompletionRequest } from './completion-request.js';
import { openAIError, sendOpenAIError } from './errors.js';
import type { OpenAIRoutesDeps } from './openai-deps.js';
import { followTurn, header, requestedTurn, answerWhole } from './requested-turn.js';
import { RESPONSES, createResponse, retrieveResponse } from './responses-routes.js';
import { failureStatus, turnExtension, type AnsweredEnd } from './turn-extension.js';

const MODELS = '/v1/models';
const COMPLETIONS = '/v1/chat/completions';

/**
 * The OpenAI-compatible API: `POST /v1/chat/completions` and `POST /v1/responses` run an agent's turn
 * through the same engine as `sendMessage` (so it shows in GraphQL), `GET /v1/responses/{id}` reads
 * one back, `GET /v1/models` lists the caller's agents. Identity is the same as GraphQL's. Returns
 * false for every other path.
 */
export function createOpenAIRoutes(deps: OpenAIRoutesDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routeOf(path);
    if (!route) return false;
    if (req.method !== route.method) {
      sendJson(res, 405, openAIError(405, `Use ${route.method} ${path}`, 'METHOD_NOT_ALLOWED'), { allow: route.method });
      return true;
    }
    void (async () => {
      try {
        // Pages of other sites must not act with a browser's identity (local header mode, cookies).
        if (!deps.origins.allows(header(req, 'origin'), header(req, 'host'))) throw new ForbiddenError('Origin not allowed (CORS_ORIGINS)');
        const ctx = await deps.identify((name) => header(req, name));
        await route.handle(deps, ctx, req, res, route.name);
      } catch (error) {
        if (res.headersSent) {
          deps.logger.error({ err: error }, 'OpenAI-compatible stream failed');
          res.end();
        } else sendOpenAIError(res, error, deps.logger);
      }
    })();
    return true;
  };
}

type Handler = (deps: OpenAIRoutesDeps, ctx: AgentContext, req: IncomingMessage, res: ServerResponse, name: string) => Promise<void>;

function routeOf(path: string): { method: 'GET' | 'POST'; handle: Handler; name: string } | null {
  const named = (prefix: string) => decodeURIComponent(path.slice(prefix.length + 1));
  if (path === COMPLETIONS) return { method: 'POST', handle: complete, name: '' };
  if (path === RESPONSES) return { method: 'POST', handle: createResponse, name: '' };
  if (path.startsWith(`${RESPONSES}/`)) return { method: 'GET', handle: retrieveResponse, name: named(RESPONSES) };
  if (path === MODELS) return { method: 'GET', handle: listModels, name: '' };
  if (path.startsWith(`${MODELS}/`)) return { method: 'GET', handle: retrieveModel, name: named(MODELS) };
  return null;
}

async function listModels(deps: OpenAIRoutesDeps, ctx: AgentContext, _req: IncomingMessage, res: ServerResponse) {
  const agents = await deps.agents.list(ctx, null, 'chat');
  sendJson(res, 200, { object: 'list', data: agents.map(modelOf) });
}

async function retrieveModel(deps: OpenAIRoutesDeps, ctx: AgentContext, _req: IncomingMessage, res: ServerResponse, name: string) {
  sendJson(res, 200, modelOf(await deps.agents.load(ctx, name)));
}

function modelOf(agent: Awaited<ReturnType<AgentRegistry['load']>>) {
  const created = Math.floor((agent.createdAt?.getTime() ?? 0) / 1000);
  return { id: agent.name, object: 'model', created, owned_by: agent.userId ? 'user' : 'remgraph', description: agent.spec.description };
}

async function complete(deps: OpenAIRoutesDeps, ctx: AgentContext, req: IncomingMessage, res: ServerResponse) {
  const body = await readJsonBody(req, res, deps.maxRequestBytes);
  const request = parseCompletionRequest(body, ctx);
  const { turn, validatedOnly, answering } = await requestedTurn(deps, ctx, req, res, COMPLETIONS, body, request, { via: 'openai-chat-completions' });
  const reply = new Reply(request, turn.id, turn.sessionId);
  const { parts, headers } = followTurn(deps, turn, res);

  if (!request.stream)
    return answerWhole(parts, answering, res, headers, (text, end) => reply.completion(validatedOnly && end.kind === 'answered' ? end.content : text, end));

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...headers });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  send(reply.chunk({ role: 'assistant', content: '' }, null));
  for await (const part of parts) {
    if (part.type === 'delta') {
      if (!validatedOnly) send(reply.chunk({ content: part.text }, null));
      continue;
    }
    const end = part.end;
    await answering(end);
    if (end.kind === 'failed') {
      // The SDK raises an APIError for a data line holding `error`, after the text streamed so far.
      send(openAIError(failureStatus(end), end.message, end.code, null, 'server_error'));
    } else {
      if (validatedOnly && end.kind === 'answered' && end.content) send(reply.chunk({ content: end.content }, null));
      if (end.kind === 'tool_calls') send(reply.chunk({ tool_calls: wireCalls(end).map((call, index) => ({ index, ...call })) }, null));
      send({ ...reply.chunk({}, finishReason(end)), remgraph: reply.extension(end) });
      const usage = wireUsage(end);
      if (request.includeUsage && usage) send({ ...reply.chunk({}, null), choices: [], usage });
    }
  }
  res.end('data: [DONE]\n\n');
}

/** The fixed parts of one completion's objects. */
class Reply {
  readonly id: string;
  readonly created = Math.floor(Date.now() / 1000);

  constructor(
    private readonly request: CompletionRequest,
    private readonly turnId: string,
    private readonly sessionId: string,
  ) {
    this.id = `chatcmpl-${turnId}`;
  }

  chunk(delta: Record<string, unknown>, finish: string | null) {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.request.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
  }

  completion(content: string, end: AnsweredEnd) {
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.request.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: end.kind === 'tool_calls' ? content || null : content, refusal: null, ...toolCallsOf(end) },
          logprobs: null,
          finish_reason: finishReason(end),
        },
      ],
      usage: wireUsage(end),
      remgraph: this.extension(end),
    };
  }

  extension(end: AnsweredEnd) {
    return turnExtension(this.sessionId, this.turnId, end);
  }
}

/**
 * `stop` for an answer that ended (in full, or where its owner cancelled it: remgraph.status tells
 * them apart), `length` for one cut at a limit (max_tokens, max_iterations, the agent's limits),
 * `tool_calls` for calls of the client's own tools handed back, as OpenAI means them; a turn paused
 * for a human decision says so.
 */
function finishReason(end: AnsweredEnd): string {
  if (end.kind === 'awaiting_approval') return 'approval_required';
  if (end.kind === 'tool_calls') return 'tool_calls';
  return end.status === 'MAX_ITERATIONS' ? 'length' : 'stop';
}

/** The calls of the client's own tools a turn handed back, as OpenAI's `tool_calls`. */
function wireCalls(end: Extract<AnsweredEnd, { kind: 'tool_calls' }>) {
  return end.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
}

function toolCallsOf(end: AnsweredEnd) {
  return end.kind === 'tool_calls' ? { tool_calls: wireCalls(end) } : {};
}

/** Token counts of the whole turn tree; none yet for a paused turn (GraphQL's Turn.usage has them once it ends). */
function wireUsage(end: AnsweredEnd) {
  const usage = end.usage;
  if (!usage) return null;
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}
