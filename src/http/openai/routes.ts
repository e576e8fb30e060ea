import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeGlobalID } from '../global-ids.js';
import type { AgentRegistry } from '../../agents/registry.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Identify } from '../../auth/identify.js';
import type { TurnEventsDeps } from '../../events/turn-events.js';
import type { Logger } from '../../logger.js';
import type { Turn } from '../../db/generated/client.js';
import type { SendMessageInput } from '../../turns/turn-service.js';
import { ForbiddenError, ValidationError } from '../../errors.js';
import { readJsonBody, sendJson } from '../json-body.js';
import type { OriginPolicy } from '../origin-policy.js';
import { asRequestError, parseCompletionRequest, type CompletionRequest } from './completion-request.js';
import { openAIError, sendOpenAIError } from './errors.js';
import { turnCompletion, type CompletionEnd } from '../../events/turn-completion.js';

export interface OpenAIRoutesDeps extends TurnEventsDeps {
  identify: Identify;
  origins: OriginPolicy;
  turns: CompletionTurns;
  agents: AgentRegistry;
  logger: Logger;
  maxRequestBytes: number;
}

/** What the routes need of the turn engine (its TurnService): start a turn as `sendMessage` does. */
interface CompletionTurns {
  sendMessage(
    ctx: AgentContext,
    input: SendMessageInput,
  ): Promise<{ turn: Pick<Turn, 'id' | 'sessionId' | 'rootId' | 'status' | 'lastSeq'>; session: { id: string } }>;
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
  const request = parseCompletionRequest(await readJsonBody(req, res, deps.maxRequestBytes), ctx);
  const { spec } = await deps.agents.load(ctx, request.agent);
  // Clients send max_tokens of their own choosing: more than the agent allows is the agent's limit, not an error.
  const { maxTokens } = request.overrides;
  const overrides = { ...request.overrides, maxTokens: maxTokens != null && spec.maxTokens !== undefined ? Math.min(maxTokens, spec.maxTokens) : maxTokens };
  // A JSON answer may be repaired once after it was validated, so only the validated answer is sent
  // (in one piece when streaming): a client must never get the rejected attempt joined to it.
  const validatedOnly = Boolean(spec.structuredOutput || overrides.responseFormat);
  const { turn, session } = await deps.turns
    .sendMessage(
      { ...ctx, addedInstruction: request.instruction },
      {
        sessionId: request.sessionId,
        content: request.content,
        history: request.history,
        agent: request.agent,
        model: request.modelOverride,
        overrides,
        metadata: { via: 'openai-chat-completions' },
      },
    )
    .catch((error: unknown) => {
      throw error instanceof ValidationError ? asRequestError(error) : error;
    });
  const reply = new Reply(request, turn.id, session.id);
  const parts = turnCompletion(deps, turn);
  // The turn goes on when the client leaves (it is in the session, visible over GraphQL); only the stream stops.
  res.once('close', () => void parts.return(undefined));
  const headers = { 'x-session-id': encodeGlobalID('Session', session.id), 'x-turn-id': encodeGlobalID('Turn', turn.id) };

  if (!request.stream) {
    let text = '';
    for await (const part of parts) {
      if (part.type === 'delta') text += part.text;
      else if (part.end.kind === 'failed') {
        const status = failureStatus(part.end);
        return sendJson(res, status, openAIError(status, part.end.message, part.end.code), headers);
      } else return sendJson(res, 200, reply.completion(validatedOnly && part.end.kind === 'answered' ? part.end.content : text, part.end), headers);
    }
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...headers });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  send(reply.chunk({ role: 'assistant', content: '' }, null));
  for await (const part of parts) {
    if (part.type === 'delta') {
      if (!validatedOnly) send(reply.chunk({ content: part.text }, null));
      continue;
    }
    const end = part.end;
    if (end.kind === 'failed') {
      // The SDK raises an APIError for a data line holding `error`, after the text streamed so far.
      send(openAIError(failureStatus(end), end.message, end.code));
    } else {
      if (validatedOnly && end.kind === 'answered' && end.content) send(reply.chunk({ content: end.content }, null));
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

/**
 * `stop` for an answer that ended (in full, or where its owner cancelled it: remgraph.status tells
 * them apart), `length` for one cut at a limit (max_tokens, max_iterations, the agent's limits), as
 * OpenAI means them; a turn paused for a human decision says so.
 */
function finishReason(end: Exclude<CompletionEnd, { kind: 'failed' }>): string {
  if (end.kind === 'awaiting_approval') return 'approval_required';
  return end.status === 'MAX_ITERATIONS' ? 'length' : 'stop';
}

/** A turn whose server stopped may be tried again (503, which SDKs retry); any other failure is the model's or the agent's (502). */
function failureStatus(end: Extract<CompletionEnd, { kind: 'failed' }>): number {
  return end.status === 'INTERRUPTED' ? 503 : 502;
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
