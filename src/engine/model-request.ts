import { buildRequestInstructions, type RequestInstructionsContext } from '../agents/prompt.js';
import type { AgentContext } from '../auth/agent-context.js';
import type { Session } from '../db/generated/client.js';
import { UNNAMED_SESSION } from '../sessions/sessions.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { ChatMessage, ChatRequest, ResponseFormat, SamplingOptions, ToolSpec } from '../llm/chat-model.js';
import type { ToolRegistry } from '../tools/registry.js';
import { offeredTools, responseFormatFor, type RunState } from './run-state.js';

/** Who a request is for, as its instructions tell the model (rebuilt for every call, never stored). */
export type RequestScope = Omit<RequestInstructionsContext, 'now' | 'agentName'>;

/** What the request context tells about the session a turn runs in. */
export type SessionFacts = Pick<Session, 'id' | 'name' | 'metadata' | 'routing' | 'activeAgent'>;

/** The request scope of a turn for `ctx` in `session` (none: a run outside any session). */
export function requestScope(ctx: AgentContext, session: SessionFacts | null): RequestScope {
  const metadata = session?.metadata;
  return {
    userId: ctx.userId,
    userEmail: ctx.userEmail,
    userName: ctx.userName,
    sessionId: session?.id ?? null,
    sessionName: session?.name === UNNAMED_SESSION ? null : session?.name,
    sessionMetadata: metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? metadata : null,
    activeAgent: session?.routing ? session.activeAgent : null,
    addedInstruction: ctx.addedInstruction,
  };
}

/**
 * The one place a model request is put together: the system prompt, then the request's
 * instructions (the time, who asks, the added instruction), then the conversation; the tools
 * offered (none: left out), the response format and the sampling.
 */
export function modelRequest(parts: {
  systemPrompt: string;
  instructions: string;
  conversation: ChatMessage[];
  tools: readonly ToolSpec[];
  responseFormat: ResponseFormat | undefined;
  sampling: Omit<SamplingOptions, 'responseFormat'>;
}): ChatRequest {
  return {
    messages: [{ role: 'system', content: parts.systemPrompt }, { role: 'system', content: parts.instructions }, ...parts.conversation],
    tools: parts.tools.length ? parts.tools : undefined,
    responseFormat: parts.responseFormat,
    ...parts.sampling,
  };
}

/**
 * A turn's next model request from its state (whose first message is the system prompt): what the
 * agent loop sends, and what the history budget counts before the turn starts.
 */
export function turnRequest(
  agent: ResolvedAgent,
  state: Pick<RunState, 'messages' | 'overrides'>,
  tools: ToolRegistry,
  scope: RequestScope,
  now = new Date(),
): ChatRequest {
  const [system, ...conversation] = state.messages;
  const { overrides } = state;
  return modelRequest({
    systemPrompt: system!.content ?? '',
    instructions: buildRequestInstructions({ now, ...scope, agentName: agent.name }),
    conversation,
    tools: [...tools.specsFor(offeredTools(agent, overrides)), ...(overrides?.clientTools ?? [])],
    responseFormat: responseFormatFor(agent, overrides),
    sampling: {
      temperature: overrides?.temperature ?? agent.spec.temperature,
      topP: overrides?.topP,
      maxTokens: overrides?.maxTokens ?? agent.spec.maxTokens,
      stop: overrides?.stop,
      seed: overrides?.seed,
    },
  });
}
