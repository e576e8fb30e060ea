import { z } from 'zod';
import type { AgentContext } from '../../auth/agent-context.js';
import type { SendMessageInput } from '../../turns/send-input.js';
import { ValidationError } from '../../errors.js';
import { rowIdOrUuid } from '../global-ids.js';
import { parseInput } from '../../validation.js';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const messageContent = z.union([z.string(), z.array(z.union([textPart, z.object({ type: z.string() }).passthrough()]))]).nullish();
// `extra_content` is provider data the call came with (Gemini's thought signature): it goes back with the call.
const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
  extra_content: z.record(z.string(), z.unknown()).nullish(),
});

const body = z.object({
  model: z.string().trim().min(1, 'must name an agent, e.g. "general" or "general@openai:gpt-4.1-mini"').max(300),
  messages: z
    .array(
      z
        .object({
          role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
          content: messageContent,
          tool_calls: z.array(toolCall).nullish(),
          tool_call_id: z.string().nullish(),
        })
        .passthrough(),
    )
    .min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).passthrough().nullish(),
  user: z.string().max(200).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  // Ranges are the turn service's to check (the same as GraphQL's overrides); only the shapes are read here.
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  seed: z.number().nullish(),
  response_format: z.object({ type: z.string() }).passthrough().nullish(),
  tools: z
    .array(
      z
        .object({
          type: z.string(),
          function: z.object({ name: z.string(), description: z.string().nullish(), parameters: z.unknown().optional() }).passthrough().nullish(),
        })
        .passthrough(),
    )
    .nullish(),
  tool_choice: z.unknown().optional(),
  // Asked for, they would be silently missing from the answer: refused instead.
  n: z.literal(1, { error: 'only 1 is supported: a request runs one turn, which gives one answer' }).nullish(),
  logprobs: z.literal(false, { error: 'log probabilities are not available: the answer comes from an agent’s turn' }).nullish(),
  top_logprobs: z.null({ error: 'log probabilities are not available: the answer comes from an agent’s turn' }).optional(),
});

type Overrides = NonNullable<SendMessageInput['overrides']>;
type History = NonNullable<SendMessageInput['history']>;

/** What a chat completions request asks of the engine. */
export interface CompletionRequest {
  /** As sent: echoed in every response. */
  model: string;
  agent: string;
  /** `provider:model` after the agent's `@`, if any. */
  modelOverride: string | null;
  /** The session to continue; null starts a new one. */
  sessionId: string | null;
  /** The last user message: the turn's input (null when the messages end with tool results). */
  content: string | null;
  /** The trailing tool messages: results of the client's own tools, which the turn answers instead of a message. */
  toolResults: { toolCallId: string; content: string }[] | null;
  /** The earlier user, assistant and tool messages, oldest first: the turn's history when no session is named. */
  history: History | null;
  /** The request's system/developer messages, given to the agent for this turn only. */
  instruction: string | null;
  /** Sampling, response format and tools as the turn service takes them; max_tokens before the agent's cap. */
  overrides: Overrides;
  stream: boolean;
  includeUsage: boolean;
}

/**
 * Reads an OpenAI chat completions body. The last message (which must be the user's) starts the
 * turn. A named session keeps the conversation, so earlier user/assistant messages are what the
 * client already saw and are not read again; without one (a stateless client sending the whole
 * conversation each time) they, with tool calls and results, are the turn's history. A session is
 * named (by its GraphQL ID or bare UUID) in `metadata.session_id`, in `user` when that holds a
 * session id, or in the X-Session-Id header. A function tool named like one of the agent's tools
 * (with `parameters` or without) offers just the agent's tools so named this turn; any other is the
 * client's own (taking no arguments when it has no `parameters`): offered beside the agent's tools,
 * its calls are handed back (`finish_reason: "tool_calls"`), and the client's next request ends with
 * their results (`role: "tool"` messages), which the turn answers. `tool_choice: "none"` offers none.
 */
export function parseCompletionRequest(raw: unknown, ctx: AgentContext): CompletionRequest {
  return completionRequestOf(parseInput(body, raw), ctx);
}

/** A chat completions body, as read: what the Responses API's requests are translated to. */
export type ChatBody = z.infer<typeof body>;

/** What a chat completions body asks of the engine (see parseCompletionRequest). */
export function completionRequestOf(input: ChatBody, ctx: AgentContext): CompletionRequest {
  const last = input.messages.at(-1)!;
  const answers = last.role === 'tool' ? toolResultsOf(input.messages) : null;
  if (!answers && last.role !== 'user') throw invalid(['messages', input.messages.length - 1, 'role'], 'the last message must be the user’s or a tool result');
  const content = answers ? null : textOf(last.content, ['messages', input.messages.length - 1, 'content']).trim();
  if (content === '') throw invalid(['messages', input.messages.length - 1, 'content'], 'must not be empty');
  const instruction = input.messages
    .map((m, i) => (m.role === 'system' || m.role === 'developer' ? textOf(m.content, ['messages', i, 'content']) : ''))
    .filter(Boolean)
    .join('\n\n');
  const history = historyOf(input.messages.slice(0, answers ? answers.from : -1), Boolean(answers));

  const at = input.model.indexOf('@');
  const agent = at === -1 ? input.model : input.model.slice(0, at);
  const modelOverride = at === -1 ? null : input.model.slice(at + 1);
  if (!agent) throw invalid(['model'], 'names no agent before "@"');
  if (modelOverride === '') throw invalid(['model'], 'names no model after "@"');

  const sessionId = sessionOf(input, ctx);

  return {
    model: input.model,
    agent,
    modelOverride,
    sessionId,
    content,
    toolResults: answers?.results ?? null,
    history: sessionId === null && history.length > 0 ? history : null,
    instruction: [ctx.addedInstruction, instruction].filter(Boolean).join('\n\n') || null,
    overrides: overridesOf(input),
    stream: input.stream === true,
    includeUsage: input.stream_options?.include_usage === true,
  };
}

/**
 * The trailing tool messages (from index `from`): the results of the client's own tools that the
 * last assistant message called, which the turn answers.
 */
function toolResultsOf(messages: ChatBody['messages']): { from: number; results: { toolCallId: string; content: string }[] } {
  let from = messages.length;
  while (messages[from - 1]?.role === 'tool') from -= 1;
  const results = messages.slice(from).map((m, i) => {
    if (!m.tool_call_id) throw invalid(['messages', from + i, 'tool_call_id'], 'must name the tool call it answers');
    return { toolCallId: m.tool_call_id, content: textOf(m.content, ['messages', from + i, 'content']) };
  });
  return { from, results };
}

/**
 * The messages before the opening ones, without system messages; every tool result must answer an
 * earlier call, and every call get one, but the last calls when `answered` (by the opening tool results).
 */
function historyOf(messages: ChatBody['messages'], answered: boolean): History {
  const history: History = [];
  let unanswered = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === 'system' || m.role === 'developer') return;
    if (m.role === 'tool') {
      const id = m.tool_call_id;
      if (!id || !unanswered.delete(id)) throw invalid(['messages', i, 'tool_call_id'], 'must answer a tool call of the assistant message before it');
      history.push({ role: 'tool', toolCallId: id, content: textOf(m.content, ['messages', i, 'content']) });
      return;
    }
    if (unanswered.size > 0) throw invalid(['messages', i], `tool call "${[...unanswered][0]}" has no tool message with its result before this message`);
    const text = textOf(m.content, ['messages', i, 'content']);
    if (m.role === 'user') {
      history.push({ role: 'user', content: text });
      return;
    }
    const calls = (m.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
      ...(c.extra_content ? { extraContent: c.extra_content } : {}),
    }));
    unanswered = new Set(calls.map((c) => c.id));
    history.push({ role: 'assistant', content: text || (calls.length ? null : ''), ...(calls.length ? { toolCalls: calls } : {}) });
  });
  if (unanswered.size > 0 && !answered)
    throw invalid(['messages', messages.length], `tool call "${[...unanswered][0]}" has no tool message with its result before this message`);
  return history;
}

function overridesOf(input: ChatBody): Overrides {
  const format = input.response_format;
  const functions = (input.tools ?? []).map((tool, i) => {
    if (tool.type !== 'function' || !tool.function) throw invalid(['tools', i, 'type'], `"${tool.type}" tools are not supported; send function tools`);
    const { name, description, parameters } = tool.function;
    if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)))
      throw invalid(['tools', i, 'function', 'parameters'], 'must be a JSON Schema object');
    return { name, description, parameters: parameters as Record<string, unknown> | undefined };
  });
  // Which are the agent's and which the client's is told by the agent's tool names (see requestedTurn).
  const tools = functions.filter((f) => f.parameters === undefined).map((f) => f.name);
  const clientTools = functions.flatMap((f) => (f.parameters === undefined ? [] : [{ name: f.name, description: f.description, parameters: f.parameters }]));
  const stop = typeof input.stop === 'string' ? [input.stop] : input.stop;
  return {
    temperature: input.temperature,
    topP: input.top_p,
    // The newer name wins when a client sends both.
    maxTokens: input.max_completion_tokens ?? input.max_tokens,
    stop,
    seed: input.seed,
    responseFormat: format && format.type !== 'text' ? (format as Overrides['responseFormat']) : null,
    tools: input.tool_choice === 'none' ? [] : tools.length ? tools : null,
    clientTools: input.tool_choice === 'none' || !clientTools.length ? null : clientTools,
  };
}

const PARAMS: Record<string, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  maxTokens: 'max_tokens',
  stop: 'stop',
  seed: 'seed',
  responseFormat: 'response_format',
  tools: 'tools',
};

/**
 * The turn service's refusal of a request's values, named by the request's own parameters
 * (`input.overrides.tools.0` is `tools.0.function.name`).
 */
export function asRequestError(error: ValidationError): ValidationError {
  return withPaths(error, requestPath);
}

/** The same refusal with each issue's path renamed. */
export function withPaths(error: ValidationError, rename: (path: (string | number)[]) => (string | number)[]): ValidationError {
  const issues = error.issues.map(({ path, message }) => ({ path: rename(path), message }));
  const first = issues[0];
  if (!first) return error;
  // A refusal already named by its path (one renamed before) keeps its text without the old name; one
  // from below the turn service (the model resolver's) says in full what is wrong and what would do.
  const named = `${error.issues[0]!.path.join('.')}: `;
  const message = error.message.startsWith(named) ? error.message.slice(named.length) : error.issues[0]!.path[0] === 'input' ? first.message : error.message;
  return new ValidationError(`${first.path.join('.')}: ${message}`, issues);
}

function requestPath(path: (string | number)[]): (string | number)[] {
  if (path[0] !== 'input') return path;
  const [, area, field, ...rest] = path;
  if (area === 'history' || area === 'content' || area === 'toolResults') return ['messages'];
  if (area === 'agent' || area === 'model') return ['model'];
  // Client tools are the request's tools with parameters: the message names the tool, not its place.
  if (area === 'overrides' && field === 'clientTools') return ['tools'];
  if (area !== 'overrides' || typeof field !== 'string' || !PARAMS[field]) return path.slice(1);
  if (field === 'tools' && rest.length === 1) return ['tools', rest[0]!, 'function', 'name'];
  return [PARAMS[field]!, ...rest];
}

function sessionOf(input: ChatBody, ctx: AgentContext): string | null {
  const named = input.metadata?.session_id;
  if (named !== undefined) {
    const id = typeof named === 'string' ? rowIdOrUuid(named, 'Session') : null;
    if (!id) throw invalid(['metadata', 'session_id'], 'must be a session id');
    return id;
  }
  // `user` is often an end-user label rather than a session: only a session id counts.
  const fromUser = input.user ? rowIdOrUuid(input.user, 'Session') : null;
  if (fromUser) return fromUser;
  if (!ctx.sessionId) return null;
  const fromHeader = rowIdOrUuid(ctx.sessionId, 'Session');
  if (!fromHeader) throw invalid(['X-Session-Id'], 'must be a session id');
  return fromHeader;
}

function textOf(content: z.infer<typeof messageContent>, path: (string | number)[]): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type !== 'text') throw invalid([...path, i, 'type'], `"${part.type}" parts are not supported; send text`);
      return (part as z.infer<typeof textPart>).text;
    })
    .join('');
}

function invalid(path: (string | number)[], message: string): ValidationError {
  return new ValidationError(`${path.join('.')}: ${message}`, [{ path, message }]);
}
