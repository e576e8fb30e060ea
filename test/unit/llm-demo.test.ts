import { describe, expect, it } from 'vitest';
import { isAbortError, type ChatRequest, type ChatStreamPart, type ToolSpec } from '../../src/llm/chat-model.js';
import { createDemoModel, DEMO_MARKER } from '../../src/llm/demo.js';

const demo = createDemoModel();

async function collect(request: ChatRequest): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of demo.stream(request)) parts.push(part);
  return parts;
}

const text = (parts: ChatStreamPart[]) =>
  parts
    .filter((p) => p.type === 'text-delta')
    .map((p) => p.delta)
    .join('');
const toolCalls = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));

const tools: ToolSpec[] = [
  { name: 'search', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  { name: 'lookup', description: 'Lookup', parameters: { type: 'object', properties: { key: { type: 'string' } } } },
];

describe('demo model', () => {
  it('labels itself and is deterministic', async () => {
    expect(demo).toMatchObject({ provider: 'demo', model: 'demo', id: 'demo', isDemo: true });
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'Hello demo, how are you?' },
      ],
    };
    const first = await collect(request);
    const second = await collect(request);
    expect(second).toEqual(first);
    expect(text(first).startsWith(DEMO_MARKER)).toBe(true);
    expect(DEMO_MARKER).toBe('[demo model: offline, not a real LLM]');
    expect(text(first)).toContain('You said: Hello demo, how are you?');
    expect(text(first)).toContain('OPENAI_API_KEY');
  });

  it('streams in small word chunks and ends with deterministic usage', async () => {
    const parts = await collect({ messages: [{ role: 'user', content: 'one two three' }] });
    const deltas = parts.filter((p) => p.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(10);
    for (const d of deltas) expect(d.delta.trim().split(/\s+/)).toHaveLength(1);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: deltas.length } });
  });

  it('calls an offered tool with /tool, passing the arguments verbatim', async () => {
    const parts = await collect({ messages: [{ role: 'user', content: '/tool search {"q": "paris"}' }], tools });
    expect(toolCalls(parts)).toEqual([{ id: 'demo_call_1', name: 'search', arguments: '{"q": "paris"}' }]);
    expect(text(parts).startsWith(DEMO_MARKER)).toBe(true);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });

    const malformed = await collect({ messages: [{ role: 'user', content: '/tool search {"q": ' }], tools });
    expect(toolCalls(malformed)[0]!.arguments).toBe('{"q":');
  });

  it('makes parallel calls with /tools, numbering ids across the conversation', async () => {
    const parts = await collect({
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'demo_call_1', name: 'search', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'demo_call_1', content: 'r' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: '/tools search {"q":"a"} ; lookup {"key":"b"} ; search' },
      ],
      tools,
    });
    expect(toolCalls(parts)).toEqual([
      { id: 'demo_call_2', name: 'search', arguments: '{"q":"a"}' },
      { id: 'demo_call_3', name: 'lookup', arguments: '{"key":"b"}' },
      { id: 'demo_call_4', name: 'search', arguments: '{}' },
    ]);
  });

  it('refuses a tool that is not offered', async () => {
    const parts = await collect({ messages: [{ role: 'user', content: '/tool delete_all {}' }], tools });
    expect(toolCalls(parts)).toEqual([]);
    expect(text(parts)).toContain('cannot call delete_all');
    expect(text(parts)).toContain('search, lookup');
  });

  it('summarises the trailing tool results', async () => {
    const long = 'x'.repeat(300);
    const parts = await collect({
      messages: [
        { role: 'user', content: '/tools search {} ; lookup {}' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'demo_call_1', name: 'search', arguments: '{}' },
            { id: 'demo_call_2', name: 'lookup', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'demo_call_1', content: '3 hits' },
        { role: 'tool', toolCallId: 'demo_call_2', content: long },
      ],
      tools,
    });
    const reply = text(parts);
    expect(reply.startsWith(DEMO_MARKER)).toBe(true);
    expect(reply).toContain('Tool search returned: 3 hits');
    expect(reply).toContain(`Tool lookup returned: ${'x'.repeat(200)}…`);
    expect(reply).not.toContain('x'.repeat(201));
    expect(toolCalls(parts)).toEqual([]);
  });

  it('returns a minimal JSON object for a json_schema response format', async () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        score: { type: 'number' },
        count: { type: 'integer' },
        ok: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        kind: { type: 'string', enum: ['a', 'b'] },
        maybe: { type: ['string', 'null'] },
        author: { $ref: '#/$defs/person' },
        optional: { type: 'string' },
      },
      required: ['title', 'score', 'count', 'ok', 'tags', 'kind', 'maybe', 'author'],
      $defs: { person: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] } },
    };
    const parts = await collect({
      messages: [{ role: 'user', content: 'rate this' }],
      responseFormat: { type: 'json_schema', json_schema: { name: 'rating', schema, strict: true } },
    });
    expect(JSON.parse(text(parts))).toEqual({
      title: 'demo',
      score: 0,
      count: 0,
      ok: false,
      tags: [],
      kind: 'a',
      maybe: 'demo',
      author: { name: 'demo' },
    });
  });

  it('stops at maxTokens with reason length', async () => {
    const parts = await collect({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 3 });
    expect(parts.filter((p) => p.type === 'text-delta')).toHaveLength(3);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'length' });
  });

  it('ends with an abort error when the signal aborts', async () => {
    const controller = new AbortController();
    let error: unknown;
    try {
      for await (const part of demo.stream({ messages: [{ role: 'user', content: 'hi' }], signal: controller.signal })) {
        if (part.type === 'text-delta') controller.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(isAbortError(error)).toBe(true);
  });
});
