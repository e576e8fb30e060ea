import { z } from 'zod';
import type { AgentContext } from '../../auth/agent-context.js';
import { ValidationError } from '../../errors.js';
import { parseInput } from '../../validation.js';
import { completionRequestOf, withPaths, type ChatBody, type CompletionRequest } from './completion-request.js';

const part = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const content = z.union([z.string(), z.array(part)]);
const message = z.object({ type: z.literal('message').optional(), role: z.enum(['user', 'assistant', 'system', 'developer']), content }).passthrough();
const functionCall = z.object({ type: z.literal('function_call'), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() }).passthrough();
const functionCallOutput = z.object({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: content }).passthrough();

const body = z.object({
  model: z.string(),
  input: z.union([z.string(), z.array(z.object({ type: z.string().optional() }).passthrough()).min(1, 'must hold at least one item')]),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  user: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  tools: z
    .array(z.object({ type: z.string(), name: z.string().optional(), description: z.string().nullish(), parameters: z.unknown().optional() }).passthrough())
    .nullish(),
  tool_choice: z.unknown().optional(),
  text: z
    .object({
      format: z
        .object({ type: z.string(), name: z.string().optional(), schema: z.unknown().optional(), strict: z.boolean().nullish() })
        .passthrough()
        .nullish(),
    })
    .passthrough()
    .nullish(),
});

type ResponsesBody = z.infer<typeof body>;

/** What a Responses API request asks: a chat completion's request, and what only this API has. */
export interface ResponsesRequest extends CompletionRequest {
  /** `resp_…` of the response this one follows: its session is continued. */
  previousResponseId: string | null;
  /** false: an ephemeral turn, which stores no messages (and so cannot be retrieved or followed). */
  store: boolean;
  /** Echoed in the response object as sent. */
  echo: Pick<ResponsesBody, 'instructions' | 'temperature' | 'top_p' | 'max_output_tokens' | 'tools' | 'tool_choice' | 'text'>;
}

/**
 * Reads a Responses API body by translating it to the chat completions body it means, so both APIs
 * read messages, tools, formats and sessions alike; refusals name the Responses request's own fields.
 * `input` is a string (the user's message) or items: messages (text parts only), and earlier
 * `function_call` and `function_call_output` items, which are the history of a stateless client;
 * `item_reference` items are skipped. A function tool the agent has no tool of is the client's own
 * (see completion-request.ts): input ending in `function_call_output` items answers the calls handed
 * back, those of `previous_response_id` or of the function_call items before them.
 * `instructions` are a system message for this turn.
 */
export function parseResponsesRequest(raw: unknown, ctx: AgentContext): ResponsesRequest {
  const input = parseInput(body, raw);
  const { messages, origins } = messagesOf(input);
  const format = input.text?.format;
  const chat: ChatBody = {
    model: input.model,
    messages,
    stream: input.stream,
    user: input.user,
    metadata: input.metadata,
    temperature: input.temperature,
    top_p: input.top_p,
    max_completion_tokens: input.max_output_tokens,
    response_format: !format
      ? null
      : format.type === 'json_schema'
        ? { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict } }
        : { type: format.type },
    tools: input.tools?.map(({ type, name, description, parameters }) => ({
      type,
      function: name === undefined ? null : { name, ...(description != null ? { description } : {}), ...(parameters != null ? { parameters } : {}) },
    })),
    tool_choice: input.tool_choice,
  };
  try {
    return {
      ...completionRequestOf(chat, ctx),
      previousResponseId: input.previous_response_id ?? null,
      store: input.store !== false,
      echo: {
        instructions: input.instructions,
        temperature: input.temperature,
        top_p: input.top_p,
        max_output_tokens: input.max_output_tokens,
        tools: input.tools,
        tool_choice: input.tool_choice,
        text: input.text,
      },
    };
  } catch (error) {
    throw error instanceof ValidationError ? asResponsesError(error, origins) : error;
  }
}

/** A chat completions refusal (of the request, or the turn service's in its terms) named by the Responses request's fields. */
export function asResponsesError(error: ValidationError, origins: (string | number)[][] = []): ValidationError {
  return withPaths(error, (path) => {
    const [field, index, ...rest] = path;
    if (field === 'messages')
      return typeof index === 'number'
        ? [...(origins[index] ?? ['input']), ...rest.filter((p) => p !== 'content').map((p) => (p === 'tool_call_id' ? 'call_id' : p))]
        : ['input'];
    if (field === 'response_format') return ['text', 'format', ...rest.filter((p) => p !== 'json_schema')];
    if (field === 'max_tokens' || field === 'max_completion_tokens') return ['max_output_tokens'];
    if (field === 'tools') return ['tools', ...(index === undefined ? [] : [index]), ...(rest.includes('name') ? ['name'] : rest)];
    return path;
  });
}

/** The chat messages `instructions` and `input` mean, and the request path each came from. */
function messagesOf(input: ResponsesBody): { messages: ChatBody['messages']; origins: (string | number)[][] } {
  const messages: ChatBody['messages'] = [];
  const origins: (string | number)[][] = [];
  const push = (m: ChatBody['messages'][number], origin: (string | number)[]) => {
    messages.push(m);
    origins.push(origin);
  };
  if (input.instructions) push({ role: 'system', content: input.instructions }, ['instructions']);
  if (typeof input.input === 'string') {
    push({ role: 'user', content: input.input }, ['input']);
    return { messages, origins };
  }
  input.input.forEach((item, i) => {
    const at = ['input', i];
    if (item.type === undefined || item.type === 'message') {
      const m = parseInput(message, item, at);
      push({ role: m.role, content: textOf(m.content, [...at, 'content']) }, at);
    } else if (item.type === 'function_call') {
      const call = parseInput(functionCall, item, at);
      const toolCall = { id: call.call_id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } };
      // One assistant turn is several items (its text, then each call): the calls join the text's message.
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), toolCall];
      else push({ role: 'assistant', content: null, tool_calls: [toolCall] }, at);
    } else if (item.type === 'function_call_output') {
      const output = parseInput(functionCallOutput, item, at);
      push({ role: 'tool', tool_call_id: output.call_id, content: textOf(output.output, [...at, 'output']) }, at);
    } else if (item.type === 'item_reference') {
      // An earlier output item by id (the AI SDK's way with store on): its text is in the session or
      // said already, and the calls it made come as function_call items or are the previous response's.
      return;
    } else {
      const message = `"${item.type}" items are not supported; send messages, function_call, function_call_output and item_reference items`;
      throw new ValidationError(`input.${i}.type: ${message}`, [{ path: [...at, 'type'], message }]);
    }
  });
  return { messages, origins };
}

function textOf(value: z.infer<typeof content>, path: (string | number)[]): string {
  if (typeof value === 'string') return value;
  return value
    .map((p, i) => {
      if ((p.type === 'input_text' || p.type === 'output_text') && p.text !== undefined) return p.text;
      const message = `"${p.type}" parts are not supported; send input_text`;
      throw new ValidationError(`${[...path, i, 'type'].join('.')}: ${message}`, [{ path: [...path, i, 'type'], message }]);
    })
    .join('');
}
