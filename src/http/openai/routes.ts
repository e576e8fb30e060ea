import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeGlobalID } from '../global-ids.js';
import type { AgentRegistry } from '../../agents/registry.js';
import type { TurnService } from '../../engine/turns.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Identify } from '../../auth/identify.js';
import type { TurnEventsDeps } from '../../events/turn-events.js';
import type { Logger } from '../../logger.js';
import { ForbiddenError } from '../../errors.js';
import { readJsonBody, sendJson } from '../json-body.js';
import type { OriginPolicy } from '../origin-policy.js';
import { parseCompletionRequest, type CompletionRequest } from './completion-request.js';
import { openAIError, sendOpenAIError } from './errors.js';
import { turnCompletion, type CompletionEnd } from '../../engine/completion.js';

export interface OpenAIRoutesDeps extends TurnEventsDeps {
  identify: Identify;
  origins: OriginPolicy;
  turns: TurnService;
  agents: AgentRegistry;
  logger: Logger;
  maxRequestBytes: number;
}

const MODELS = '/v1/models';
const COMPLETIONS = '/v1/chat/completions';

/**
 * The OpenAI-compatible API: `POST /v1/chat/completions` runs an agent's turn through the same
 * engine as `sendMessage` (so it shows in GraphQL), `GET /v1/models` lists the caller's agents.
 * Identity is the same as GraphQL's. Returns false for every other path.
 */
export function createOpenAIRoutes(deps: OpenAIRoutesDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== COMPLETIONS && path !== MODELS && !path.startsWith(`${MODELS}/`)) return false;
    const allowed = path === COMPLETIONS ? 'POST' : 'GET';
    if (req.method !== allowed) {
      sendJson(res, 405, openAIError(405, `Use ${allowed} ${path}`, 'METHOD_NOT_ALLOWED'), { allow: allowed });
      return true;
    }
    const handle = path === COMPLETIONS ? complete : path === MODELS ? listModels : retrieveModel;
    void (async () => {
      try {
        // Pages of other sites must not act with a browser's identity (local header mode, cookies).
        if (!deps.origins.allows(header(req, 'origin'), header(req, 'host'))) throw new ForbiddenError('Origin not allowed (CORS_ORIGINS)');
        const ctx = await deps.identify((name) => header(req, name));
        await handle(deps, ctx, req, res, decodeURIComponent(path.slice(MODELS.length + 1)));
      } catch (error) {
        if (res.headersSent) {
          deps.logger.error({ err: error }, 'chat completion stream failed');
          res.end();
        } else sendOpenAIError(res, error, deps.logger);
      }
    })();
    return true;
  };
}

async function listModels(deps: OpenAIRoutesDeps, ctx: AgentContext, _req: IncomingMessage, res: ServerResponse) {
  const agents = await deps.agents.list(ctx);
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
  const request = parseCompletionRequest(await readJsonBody(req, res, deps.maxRequestBytes), ctx);
  const { turn, session } = await deps.turns.sendMessage(
    { ...ctx, addedInstruction: request.instruction },
    { sessionId: request.sessionId, content: request.content, agent: request.agent, model: request.modelOverride, metadata: { via: 'openai-chat-completions' } },
  );
  const reply = new Reply(request, turn.id, session.id);
  const parts = turnCompletion(deps, turn);
  // The turn goes on when the client leaves (it is in the session, visible over GraphQL); only the stream stops.
  res.once('close', () => void parts.return(undefined));
  const headers = { 'x-session-id': encodeGlobalID('Session', session.id), 'x-turn-id': encodeGlobalID('Turn', turn.id) };

  if (!request.stream) {
    let text = '';
    for await (const part of parts) {
      if (part.type === 'delta') text += part.text;
      else if (part.end.kind === 'failed') return sendJson(res, 502, openAIError(502, part.end.message, part.end.code), headers);
      else return sendJson(res, 200, reply.completion(text, part.end), headers);
    }
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...headers });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  send(reply.chunk({ role: 'assistant', content: '' }, null));
  for await (const part of parts) {
    if (part.type === 'delta') {
      send(reply.chunk({ content: part.text }, null));
      continue;
    }
    const end = part.end;
    if (end.kind === 'failed') {
      // The SDK raises an APIError for a data line holding `error`.
      send(openAIError(502, end.message, end.code));
    } else {
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
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.request.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
  }

  completion(content: string, end: Exclude<CompletionEnd, { kind: 'failed' }>) {
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.request.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: finishReason(end) }],
      usage: wireUsage(end),
      remgraph: this.extension(end),
    };
  }

  /** Where the turn lives in GraphQL, and what a paused turn waits for (ids for `decideApproval`). */
  extension(end: Exclude<CompletionEnd, { kind: 'failed' }>) {
    return {
      session_id: encodeGlobalID('Session', this.sessionId),
      turn_id: encodeGlobalID('Turn', this.turnId),
      status: end.kind === 'answered' ? end.status : 'AWAITING_APPROVAL',
      ...(end.kind === 'awaiting_approval'
        ? { approvals: end.approvals.map((a) => ({ id: encodeGlobalID('Approval', a.id), tool: a.toolName, arguments: a.arguments, agent_path: a.agentPath })) }
        : {}),
    };
  }
}

/** `stop` and `length` as OpenAI means them; a turn paused for a human decision says so. */
function finishReason(end: Exclude<CompletionEnd, { kind: 'failed' }>): string {
  if (end.kind === 'awaiting_approval') return 'approval_required';
  return end.status === 'COMPLETED' ? 'stop' : 'length';
}

/** Token counts of the whole turn tree; none yet for a paused turn (GraphQL's Turn.usage has them once it ends). */
function wireUsage(end: Exclude<CompletionEnd, { kind: 'failed' }>) {
  const usage = end.usage;
  if (!usage) return null;
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

