import type { ChatModel, ChatRequest, ChatStreamPart, ToolCall } from '../../src/llm/chat-model.js';
import { abortError } from '../../src/llm/chat-model.js';

/** One scripted model response: text deltas, tool calls, or a failure. */
export type ScriptedResponse =
  | { text: string[]; usage?: { inputTokens: number; outputTokens: number }; reasoning?: string[] }
  | { toolCalls: ToolCall[]; text?: string[] }
  | { fail: Error }
  /** Streams these deltas, then waits until the request is aborted. */
  | { hang: string[] };

/**
 * An in-memory ChatModel for unit tests of the agent loop: answers each request with the next
 * scripted response and records what it was asked. It is the engine's model interface, not the
 * OpenAI wire protocol (integration suites use the fake OpenAI server for that).
 */
export class ScriptedModel implements ChatModel {
  readonly provider = 'scripted';
  readonly model = 'scripted';
  readonly id = 'scripted:scripted';
  readonly isDemo = false;
  readonly requests: ChatRequest[] = [];

  constructor(private readonly script: ScriptedResponse[]) {}

  get pending(): number {
    return this.script.length;
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    this.requests.push(structuredClone({ ...request, signal: undefined }));
    const next = this.script.shift();
    if (!next) throw new Error(`No scripted response for request #${this.requests.length}`);
    if ('fail' in next) throw next.fail;
    if ('hang' in next) {
      for (const delta of next.hang) yield { type: 'text-delta', delta };
      await new Promise((_, reject) => request.signal?.addEventListener('abort', () => reject(abortError(request.signal)), { once: true }));
      return;
    }
    if ('reasoning' in next) for (const delta of next.reasoning ?? []) yield { type: 'reasoning-delta', delta };
    for (const delta of next.text ?? []) yield { type: 'text-delta', delta };
    if ('toolCalls' in next) {
      for (const call of next.toolCalls) yield { type: 'tool-call', call };
      yield { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 5 } };
      return;
    }
    yield { type: 'finish', reason: 'stop', usage: next.usage ?? { inputTokens: 10, outputTokens: 5 } };
  }
}
