import type { DynamicScript, Script } from './fake-openai.js';

interface WireMessage {
  role: string;
  tool_calls?: unknown[];
  reasoning_content?: unknown;
}

/**
 * DeepSeek's thinking mode with tools, as its API checks a request before answering with `next`:
 * each assistant tool call after the last user message (the tool loop under way) must carry its
 * `reasoning_content`, and (as deepseek-reasoner did) reasoning from before that message is refused.
 * Either mistake is DeepSeek's 400, with its own message.
 */
export function deepseekThinking(next: Script): DynamicScript {
  return (request) => {
    const messages = request.body.messages as WireMessage[];
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const earlier = messages.findIndex((m, i) => i < lastUser && m.reasoning_content !== undefined);
    if (earlier !== -1)
      return refusal(
        `The reasoning_content of message ${earlier} is from an earlier turn: it is an intermediate result for display purposes only and will not be included in the context for inference. Please remove it from your API request.`,
      );
    const missing = messages.findIndex((m, i) => i > lastUser && m.role === 'assistant' && m.tool_calls?.length && typeof m.reasoning_content !== 'string');
    if (missing !== -1) return refusal(`Missing \`reasoning_content\` field in the assistant message at message index ${missing}`);
    return next;
  };
}

const refusal = (message: string): Script => ({ status: 400, error: { message, type: 'invalid_request_error' } });
