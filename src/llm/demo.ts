import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { abortError, type ChatMessage, type ChatModel, type ChatRequest, type ChatStreamPart, type FinishReason, type ToolCall } from './chat-model.js';

/** Every text reply of the demo model starts with this, so nobody mistakes it for a real LLM. */
export const DEMO_MARKER = '[demo model: offline, not a real LLM]';

export interface DemoModelOptions {
  /** Pause between streamed chunks, so a UI visibly streams. Default 0. */
  chunkDelayMs?: number;
}

/**
 * The offline model used when no API key is configured. Deterministic: the same request always gives
 * the same parts. Commands in the last user message:
 *   `/tool <name> <json-args>`               one tool call (arguments passed through verbatim)
 *   `/tools <name> <json> ; <name> <json>`   parallel tool calls
 * Otherwise, with a json_schema response format it returns a minimal object satisfying the schema
 * (`{}` for json_object), plain JSON without the marker so it parses; after tool results it summarises them; else it echoes.
 */
export function createDemoModel(options: DemoModelOptions = {}): ChatModel {
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  return {
    provider: 'demo',
    model: 'demo',
    id: 'demo',
    isDemo: true,
    stream: (request) => streamReply(demoReply(request), request, chunkDelayMs),
  };
}

interface DemoReply {
  text: string;
  toolCalls: ToolCall[];
}

async function* streamReply(reply: DemoReply, request: ChatRequest, chunkDelayMs: number): AsyncGenerator<ChatStreamPart> {
  let words: string[] = reply.text.match(/\s*\S+|\s+$/g) ?? [];
  let reason: FinishReason = reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
  if (reply.toolCalls.length === 0 && request.maxTokens !== undefined && words.length > request.maxTokens) {
    words = words.slice(0, request.maxTokens);
    reason = 'length';
  }
  for (const delta of words) {
    // Yield to the event loop between chunks, like a network stream, so aborts can land.
    await (chunkDelayMs > 0 ? sleep(chunkDelayMs) : nextTurn());
    if (request.signal?.aborted) throw abortError(request.signal);
    yield { type: 'text-delta', delta };
  }
  if (request.signal?.aborted) throw abortError(request.signal);
  for (const call of reply.toolCalls) yield { type: 'tool-call', call };
  const outputTokens = words.length + reply.toolCalls.reduce((n, c) => n + countWords(`${c.name} ${c.arguments}`), 0);
  yield { type: 'finish', reason, usage: { inputTokens: countInputWords(request.messages), outputTokens } };
}

function demoReply(request: ChatRequest): DemoReply {
  const messages = request.messages;
  const last = messages.at(-1);
  const userText = lastUserText(messages);
  const command = /^\/(tools?)\s+([\s\S]*)$/.exec(userText.trim());
  if (last?.role === 'user' && command) return toolCallReply(command[1] === 'tools', command[2]!, request, messages);
  // Structured output must parse, so it wins over the summary and carries no marker.
  if (request.responseFormat?.type === 'json_schema') {
    const schema = request.responseFormat.json_schema.schema;
    return { text: JSON.stringify(minimalValue(schema, schema, 0)), toolCalls: [] };
  }
  if (request.responseFormat?.type === 'json_object') return { text: '{}', toolCalls: [] };
  if (last?.role === 'tool') return { text: summariseToolResults(messages), toolCalls: [] };
  return { text: echo(userText, request), toolCalls: [] };
}

function echo(userText: string, request: ChatRequest): string {
  const tools = request.tools ?? [];
  const toolHint = tools.length > 0 ? ` Tools offered: ${tools.map((t) => t.name).join(', ')}; call one with "/tool <name> {json arguments}".` : '';
  return (
    `${DEMO_MARKER} You said: ${userText}\n\n` +
    'To chat with a real model, set OPENAI_API_KEY (or LLM_DEFAULT_MODEL and LLM_PROVIDERS for another OpenAI-compatible endpoint) and restart.' +
    toolHint
  );
}

function toolCallReply(parallel: boolean, rest: string, request: ChatRequest, messages: ChatMessage[]): DemoReply {
  const offered = new Set((request.tools ?? []).map((t) => t.name));
  const specs = (parallel ? rest.split(' ; ') : [rest]).map((part) => {
    const match = /^(\S+)\s*([\s\S]*)$/.exec(part.trim());
    return { name: match?.[1] ?? '', args: match?.[2]?.trim() || '{}' };
  });
  const missing = specs.filter((s) => !offered.has(s.name)).map((s) => s.name || '(no name)');
  if (missing.length > 0) {
    const available = offered.size > 0 ? [...offered].join(', ') : 'none';
    return { text: `${DEMO_MARKER} I cannot call ${missing.join(', ')}: not offered to me. Tools offered: ${available}.`, toolCalls: [] };
  }
  // Numbering continues across the conversation so ids stay unique and deterministic.
  const earlier = messages.reduce((n, m) => n + (m.role === 'assistant' ? (m.toolCalls?.length ?? 0) : 0), 0);
  const toolCalls = specs.map((s, i) => ({ id: `demo_call_${earlier + i + 1}`, name: s.name, arguments: s.args }));
  return { text: `${DEMO_MARKER} Calling ${toolCalls.map((c) => c.name).join(', ')}.`, toolCalls };
}

function summariseToolResults(messages: ChatMessage[]): string {
  const results: Extract<ChatMessage, { role: 'tool' }>[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    results.unshift(messages[i] as Extract<ChatMessage, { role: 'tool' }>);
  }
  const names = new Map<string, string>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) names.set(c.id, c.name);
  const lines = results.map((r) => `Tool ${names.get(r.toolCallId) ?? r.toolCallId} returned: ${truncate(r.content, 200)}`);
  return `${DEMO_MARKER} ${lines.join('\n')}`;
}

function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') return m.content;
  }
  return '';
}

type Schema = Record<string, unknown>;

/** Smallest value meeting a JSON Schema's required shape: "demo", 0, false, [], objects with required keys. */
function minimalValue(schema: unknown, root: Schema, depth: number): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 16) return null;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return minimalValue(resolveRef(s.$ref, root), root, depth + 1);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) return minimalValue(options[0], root, depth + 1);
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'null') : (s.type ?? (s.properties ? 'object' : 'string'));
  switch (type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(required.map((key) => [key, minimalValue(properties[key] ?? {}, root, depth + 1)]));
    }
    case 'array': {
      const count = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: count }, () => minimalValue(s.items ?? {}, root, depth + 1));
    }
    case 'number':
    case 'integer':
      return typeof s.minimum === 'number' && s.minimum > 0 ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return 'demo';
  }
}

/** Local references only (`#/$defs/X`, `#/definitions/X`), which is what generated schemas use. */
function resolveRef(ref: string, root: Schema): unknown {
  if (!ref.startsWith('#')) return {};
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .reduce<unknown>((node, key) => (node as Schema | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function countInputWords(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => {
    const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `${c.name} ${c.arguments}`).join(' ') : '';
    return n + countWords(`${m.content ?? ''} ${calls}`);
  }, 0);
}
