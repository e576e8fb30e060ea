/**
 * The OpenAI chat-completions wire shapes as compatible servers send and take them: request bodies
 * out, streamed deltas in (tool calls in fragments or whole, reasoning under either name).
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ChatRequest, FinishReason, ReasoningReplay, ToolCall } from './chat-model.js';

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/** Joins streamed tool-call fragments by index; ids and names arrive once, arguments in pieces. */
export class ToolCallAssembler {
  private readonly calls = new Map<number, ToolCall>();
  private last = -1;

  add(delta: ToolCallDelta): void {
    // Some compatible servers omit `index`: a new id starts a new call, anything else continues the last.
    let index = (delta as { index?: number }).index;
    if (index === undefined) {
      const existing = [...this.calls].find(([, c]) => delta.id && c.id === delta.id)?.[0];
      index = existing ?? (delta.id || this.last < 0 ? this.calls.size : this.last);
    }
    this.last = index;
    const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
    if (delta.id && !call.id) call.id = delta.id;
    if (delta.function?.name && !call.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
    // Gemini sends it with the call, or alone in a later delta of the same call.
    const extra = (delta as { extra_content?: unknown }).extra_content;
    if (isRecord(extra)) call.extraContent = merged(call.extraContent ?? {}, extra);
    this.calls.set(index, call);
  }

  complete(): ToolCall[] {
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}

/** Reasoning text of a delta: `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, Ollama). */
export function reasoningOf(delta: ChatCompletionChunk.Choice.Delta | undefined): string | null {
  const extra = delta as { reasoning_content?: unknown; reasoning?: unknown } | undefined;
  const text = extra?.reasoning_content ?? extra?.reasoning;
  return typeof text === 'string' && text !== '' ? text : null;
}

export function finishReason(wire: string, hasToolCalls: boolean): FinishReason {
  // Some servers (Ollama) say "stop" even when the reply is tool calls.
  if (hasToolCalls && wire === 'stop') return 'tool_calls';
  if (wire === 'function_call') return 'tool_calls';
  if (wire === 'stop' || wire === 'tool_calls' || wire === 'length' || wire === 'content_filter') return wire;
  return 'other';
}

/** api.openai.com rejects `max_tokens` for reasoning models; most compatible servers only know `max_tokens`. */
export function usesMaxCompletionTokens(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

export function toRequestBody(
  model: string,
  request: ChatRequest,
  { maxCompletionTokens, reasoning }: { maxCompletionTokens: boolean; reasoning: ReasoningReplay },
): ChatCompletionCreateParamsStreaming {
  const tools = request.tools ?? [];
  const lastUser = request.messages.findLastIndex((m) => m.role === 'user');
  return {
    model,
    messages: request.messages.map((message, i) => toWireMessage(message, reasoning === 'tool-loop' && i > lastUser)),
    stream: true,
    stream_options: { include_usage: true },
    ...(tools.length > 0
      ? {
          tools: tools.map((t): ChatCompletionTool => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
          tool_choice: 'auto' as const,
        }
      : {}),
    ...(request.responseFormat ? { response_format: request.responseFormat } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.stop?.length ? { stop: request.stop } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.maxTokens !== undefined ? (maxCompletionTokens ? { max_completion_tokens: request.maxTokens } : { max_tokens: request.maxTokens }) : {}),
  };
}

/** A message of the conversation before the turn's own (no reasoning goes back with it) as the exact text a request body holds. */
export function wireMessageText(message: ChatMessage): string {
  return JSON.stringify(toWireMessage(message, false));
}

/** A message as sent; `withReasoning`: an assistant tool call carries its reasoning as `reasoning_content`. */
function toWireMessage(message: ChatMessage, withReasoning: boolean): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content ?? '' };
      const wire: WireAssistantMessage = {
        role: 'assistant',
        content: message.content,
        tool_calls: calls.map((c): WireToolCall => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
          ...(c.extraContent ? { extra_content: c.extraContent } : {}),
        })),
        ...(withReasoning && message.reasoning ? { reasoning_content: message.reasoning } : {}),
      };
      return wire;
    }
  }
}

/** A tool call as sent back, with the provider data that came with it. */
type WireToolCall = ChatCompletionMessageFunctionToolCall & { extra_content?: Record<string, unknown> };

/** An assistant message as sent back, with the reasoning a provider wants again (DeepSeek's `reasoning_content`). */
type WireAssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `into` with `more` merged in, nested objects key by key. */
function merged(into: Record<string, unknown>, more: Record<string, unknown>): Record<string, unknown> {
  const out = { ...into };
  for (const [key, value] of Object.entries(more)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? merged(current, value) : value;
  }
  return out;
}
