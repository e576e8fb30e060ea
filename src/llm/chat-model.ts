/**
 * The one interface the agent runtime talks to. Implementations: openai.ts (any OpenAI-compatible
 * endpoint) and demo.ts (offline). Failures are `ModelError` / `RateLimitedError` from errors.ts;
 * an aborted request ends with an error that `isAbortError` recognises.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text exactly as the model sent it; it may be invalid JSON. */
  arguments: string;
  /**
   * Provider data that came with the call and must go back with it, as sent (Gemini's
   * `extra_content.google.thought_signature`, without which Gemini 3 refuses the next request).
   * Part of the call, so it lives in the checkpoint across a pause.
   */
  extraContent?: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      toolCalls?: ToolCall[];
      /**
       * The model's reasoning before these tool calls, kept for providers that want it back within
       * the tool loop it belongs to (DeepSeek's thinking mode; see ReasoningReplay).
       */
      reasoning?: string;
    }
  | { role: 'tool'; toolCallId: string; content: string };

/**
 * Which reasoning goes back to the provider: `never` (it is shown, not sent: most providers, and
 * deepseek-reasoner answers 400 for any), or `tool-loop`: on each assistant tool call after the last
 * user message, and on no earlier one (DeepSeek's thinking mode answers 400 if the current tool
 * loop's reasoning is missing).
 */
export type ReasoningReplay = 'never' | 'tool-loop';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

interface JsonSchemaResponseFormat {
  type: 'json_schema';
  json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean };
}

/** `json_object` asks for any JSON object; `json_schema` for one matching the schema. */
export type ResponseFormat = JsonSchemaResponseFormat | { type: 'json_object' };

/** How the model samples and shapes one answer: what a request and a turn's overrides both carry. */
export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** Sequences where the model stops generating (at most 4). */
  stop?: string[];
  /** Asks the provider for repeatable sampling, where it supports it. */
  seed?: number;
  responseFormat?: ResponseFormat;
}

export interface ChatRequest extends SamplingOptions {
  messages: ChatMessage[];
  tools?: readonly ToolSpec[];
  signal?: AbortSignal;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type ChatStreamPart =
  /**
   * The request body exactly as sent to the provider, before anything else (network models only);
   * again if the model resends a changed body (structured output switched to the output tool).
   */
  | { type: 'request'; body: string }
  | { type: 'text-delta'; delta: string }
  /** The model's visible reasoning (`reasoning_content` / `reasoning` deltas of compatible servers). */
  | { type: 'reasoning-delta'; delta: string }
  /** Emitted once the call is complete (after the last chunk), in the model's index order. */
  | { type: 'tool-call'; call: ToolCall }
  /** Always the last part of a successful stream; `usage` is null when the provider reported none. */
  | { type: 'finish'; reason: FinishReason; usage: Usage | null };

export interface ChatModel {
  readonly provider: string;
  readonly model: string;
  /** `provider:model`, e.g. "openai:gpt-4.1-mini"; just "demo" for the demo model. */
  readonly id: string;
  readonly isDemo: boolean;
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}

/** The error a model stream ends with when the caller's signal aborted it. */
export function abortError(signal?: AbortSignal): Error {
  const error = new Error('The model request was aborted', { cause: signal?.reason });
  error.name = 'AbortError';
  return error;
}

/** True for an aborted model request (ours, or a platform AbortError / DOMException). */
export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}
