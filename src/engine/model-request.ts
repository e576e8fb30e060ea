import { buildRequestInstructions } from '../agents/prompt.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { ChatMessage, ChatRequest, ResponseFormat, SamplingOptions, ToolSpec } from '../llm/chat-model.js';
import type { ToolRegistry } from '../tools/registry.js';
import { offeredTools, responseFormatFor, type RunState } from './run-state.js';

/** Who a request is for, as its instructions tell the model (rebuilt for every call, never stored). */
export interface RequestScope {
  userId: string | null;
  sessionId: string | null;
  addedInstruction: string | null;
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
    tools: tools.specsFor(offeredTools(agent, overrides)),
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
