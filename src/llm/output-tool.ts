import type { ChatCompletionCreateParamsStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatStreamPart, FinishReason, ResponseFormat, ToolCall } from './chat-model.js';

/**
 * Structured output for models without `response_format: json_schema` (older OpenAI models, several
 * compatible servers): the schema becomes the parameters of one more tool, the model is made to
 * call it, and its arguments are the answer. Every tool-calling model can do this (p8's
 * `final_result`, pydantic-ai's output tools).
 */
export type StructuredOutputMode = 'json_schema' | 'tool';

const OUTPUT_TOOL = 'final_result';

/** Endpoints (base URL and model) that refused json_schema in this process: they get the output tool from then on. */
const refusedJsonSchema = new Set<string>();

export function rememberRefusal(endpoint: string): void {
  refusedJsonSchema.add(endpoint);
}

export function refusedBefore(endpoint: string): boolean {
  return refusedJsonSchema.has(endpoint);
}

/** The 400 a model without json_schema support answers, e.g. "'response_format' of type 'json_schema' is not supported with this model". */
export function refusesJsonSchema(status: number | undefined, message: string): boolean {
  return (status === 400 || status === 422) && /json_schema/i.test(message) && /not (supported|available)|unsupported|does not support/i.test(message);
}

/**
 * The request with the json_schema response format moved into the output tool. Alone, the tool is
 * forced by name; beside the agent's own tools the model must call one of them (`required`), so
 * it can still use them before it answers.
 */
export function withOutputTool(
  body: ChatCompletionCreateParamsStreaming,
  format: Extract<ResponseFormat, { type: 'json_schema' }>,
): ChatCompletionCreateParamsStreaming {
  const { response_format: _replaced, ...rest } = body;
  const tool: ChatCompletionTool = {
    type: 'function',
    function: {
      name: OUTPUT_TOOL,
      description: `Give your final answer (${format.json_schema.name}) by calling this tool: its arguments are the answer.`,
      parameters: format.json_schema.schema,
    },
  };
  const tools = body.tools ?? [];
  return {
    ...rest,
    tools: [...tools, tool],
    tool_choice: tools.length ? 'required' : { type: 'function', function: { name: OUTPUT_TOOL } },
  };
}

/**
 * What the caller sees of an output-tool reply, once it is complete: the tool's arguments as the
 * text, and the text the model wrote beside it as reasoning. When the model also called its own
 * tools, those run first and the output call is dropped (it answers again after them); when it
 * answered in plain text, that text is the answer.
 */
export function outputToolParts(text: string, calls: ToolCall[], reason: FinishReason): { parts: ChatStreamPart[]; reason: FinishReason } {
  const answer = calls.find((c) => c.name === OUTPUT_TOOL);
  const others = calls.filter((c) => c !== answer);
  const textPart: ChatStreamPart[] = text ? [{ type: 'text-delta', delta: text }] : [];
  if (others.length) return { parts: [...textPart, ...others.map((call): ChatStreamPart => ({ type: 'tool-call', call }))], reason: 'tool_calls' };
  if (!answer) return { parts: textPart, reason: reason === 'tool_calls' ? 'stop' : reason };
  return {
    parts: [...(text ? [{ type: 'reasoning-delta' as const, delta: text }] : []), { type: 'text-delta', delta: answer.arguments }],
    reason: reason === 'length' ? 'length' : 'stop',
  };
}
