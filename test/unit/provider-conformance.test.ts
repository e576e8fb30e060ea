/**
 * Each provider's stream, in the chunk shapes it sends (from its documentation and from chunks
 * users posted in bug reports), replayed over real SSE by the fake server and read by the model
 * adapter: what the caller gets is the same events whoever answered.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import type { ChatRequest, ChatStreamPart, FinishReason, ToolCall } from '../../src/llm/chat-model.js';
import { createOpenAIModel } from '../../src/llm/openai.js';
import { deepseekThinking } from '../support/deepseek-thinking.js';
import { startFakeOpenAI, type FakeOpenAI, type RawStreamScript, type RecordedRequest, type Script } from '../support/fake-openai.js';

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});

afterEach(() => {
  const pending = fake.pending;
  fake.reset();
  expect(pending, 'every scripted reply should be consumed').toBe(0);
});

afterAll(async () => {
  await fake.close();
});

const model = (name = 'provider-model') =>
  createOpenAIModel({ provider: 'provider', model: name, baseUrl: fake.url, apiKey: 'key', timeoutMs: 5000, maxRetries: 2, retryBaseMs: 1 });

const weatherTool = { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
const request: ChatRequest = { messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }], tools: [weatherTool] };

interface Seen {
  /** Part types in order, a run of the same type counted once. */
  sequence: ChatStreamPart['type'][];
  reasoning: string;
  text: string;
  toolCalls: ToolCall[];
  finish: { reason: FinishReason; usage: { inputTokens: number; outputTokens: number } | null };
}

async function run(stream: AsyncIterable<ChatStreamPart>): Promise<Seen> {
  const seen: Seen = { sequence: [], reasoning: '', text: '', toolCalls: [], finish: { reason: 'other', usage: null } };
  for await (const part of stream) {
    if (part.type === 'request') continue;
    if (seen.sequence.at(-1) !== part.type) seen.sequence.push(part.type);
    if (part.type === 'reasoning-delta') seen.reasoning += part.delta;
    else if (part.type === 'text-delta') seen.text += part.delta;
    else if (part.type === 'tool-call') seen.toolCalls.push(part.call);
    else if (part.type === 'finish') seen.finish = { reason: part.reason, usage: part.usage };
  }
  return seen;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the stream to fail');
}

/** A `chat.completion.chunk` with one choice, `extra` beside it (usage, filter results, x_groq…). */
const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}, choiceExtra = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_760_000_000,
  model,
  choices: [{ index: 0, delta, finish_reason: finish, ...choiceExtra }],
  ...extra,
});
const usageChunk = (model: string, usage: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_760_000_000,
  model,
  choices: [],
  usage,
  ...extra,
});
const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
const DONE = 'data: [DONE]\n\n';
const args = (city: string) => JSON.stringify({ city });

const safe = { filtered: false, severity: 'safe' };
const azureFilters = { hate: safe, self_harm: safe, sexual: safe, violence: safe };

interface Fixture {
  provider: string;
  shape: string;
  script: RawStreamScript;
  expected: Partial<Seen>;
}

const fixtures: Fixture[] = [
  {
    provider: 'OpenAI',
    shape: 'content, usage in a last chunk with empty choices (stream_options.include_usage)',
    script: {
      stream: [
        chunk('gpt-4.1-mini', { role: 'assistant', content: '', refusal: null }, null, { usage: null }),
        chunk('gpt-4.1-mini', { content: 'Sunny' }, null, { usage: null }),
        chunk('gpt-4.1-mini', { content: ' in Paris.' }, null, { usage: null }),
        chunk('gpt-4.1-mini', {}, 'stop', { usage: null }),
        usageChunk('gpt-4.1-mini', { ...usage(20, 4), prompt_tokens_details: { cached_tokens: 0 } }),
        DONE,
      ],
    },
    expected: { sequence: ['text-delta', 'finish'], text: 'Sunny in Paris.', finish: { reason: 'stop', usage: { inputTokens: 20, outputTokens: 4 } } },
  },
  {
    provider: 'OpenAI',
    shape: 'parallel tool calls: a header per index, then argument fragments',
    script: {
      stream: [
        chunk('gpt-4.1-mini', {
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '' } }],
        }),
        chunk('gpt-4.1-mini', { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk('gpt-4.1-mini', { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk('gpt-4.1-mini', { tool_calls: [{ index: 1, id: 'call_r', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk('gpt-4.1-mini', { tool_calls: [{ index: 1, function: { arguments: '{"city":"Rome"}' } }] }),
        chunk('gpt-4.1-mini', {}, 'tool_calls'),
        usageChunk('gpt-4.1-mini', usage(30, 12)),
        DONE,
      ],
    },
    expected: {
      sequence: ['tool-call', 'finish'],
      toolCalls: [
        { id: 'call_p', name: 'get_weather', arguments: args('Paris') },
        { id: 'call_r', name: 'get_weather', arguments: args('Rome') },
      ],
      finish: { reason: 'tool_calls', usage: { inputTokens: 30, outputTokens: 12 } },
    },
  },
  {
    provider: 'Azure OpenAI',
    shape: 'an empty first chunk with prompt_filter_results, content_filter_results on every choice',
    script: {
      stream: [
        { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: azureFilters }] },
        chunk('gpt-4o-2024-11-20', { role: 'assistant', content: '' }, null, { system_fingerprint: 'fp_a' }, { content_filter_results: {} }),
        chunk('gpt-4o-2024-11-20', { content: 'Sunny' }, null, {}, { content_filter_results: azureFilters }),
        chunk('gpt-4o-2024-11-20', { content: '.' }, null, {}, { content_filter_results: azureFilters }),
        chunk('gpt-4o-2024-11-20', {}, 'stop', {}, { content_filter_results: {} }),
        usageChunk('gpt-4o-2024-11-20', usage(18, 2)),
        DONE,
      ],
    },
    expected: { sequence: ['text-delta', 'finish'], text: 'Sunny.', finish: { reason: 'stop', usage: { inputTokens: 18, outputTokens: 2 } } },
  },
  {
    provider: 'Azure OpenAI',
    shape: 'a reply cut by the content filter',
    script: {
      stream: [
        { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: azureFilters }] },
        chunk('gpt-4o', { role: 'assistant', content: 'Here is' }, null, {}, { content_filter_results: azureFilters }),
        chunk('gpt-4o', {}, 'content_filter', {}, { content_filter_results: { ...azureFilters, violence: { filtered: true, severity: 'high' } } }),
        DONE,
      ],
    },
    expected: { text: 'Here is', finish: { reason: 'content_filter', usage: null } },
  },
  {
    provider: 'Ollama',
    shape: 'a whole tool call in one chunk, finish_reason "stop", reasoning deltas',
    script: {
      stream: [
        chunk('qwen3:8b', { role: 'assistant', content: '', reasoning: 'The user wants' }, null, { system_fingerprint: 'fp_ollama' }),
        chunk('qwen3:8b', { role: 'assistant', content: '', reasoning: ' the weather.' }, null, { system_fingerprint: 'fp_ollama' }),
        chunk(
          'qwen3:8b',
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'call_n0xw', index: 0, type: 'function', function: { name: 'get_weather', arguments: args('Paris') } }],
          },
          null,
          { system_fingerprint: 'fp_ollama' },
        ),
        chunk('qwen3:8b', { role: 'assistant', content: '' }, 'stop', { system_fingerprint: 'fp_ollama' }),
        usageChunk('qwen3:8b', usage(90, 25), { system_fingerprint: 'fp_ollama' }),
        DONE,
      ],
    },
    expected: {
      sequence: ['reasoning-delta', 'tool-call', 'finish'],
      reasoning: 'The user wants the weather.',
      toolCalls: [{ id: 'call_n0xw', name: 'get_weather', arguments: args('Paris') }],
      finish: { reason: 'tool_calls', usage: { inputTokens: 90, outputTokens: 25 } },
    },
  },
  {
    provider: 'vLLM',
    shape: 'reasoning_content, then parallel tool calls with stop_reason beside finish_reason',
    script: {
      stream: [
        chunk('Qwen/Qwen3-8B', { role: 'assistant', content: '' }, null, {}, { logprobs: null }),
        chunk('Qwen/Qwen3-8B', { reasoning_content: 'Two cities,' }, null, {}, { logprobs: null }),
        chunk('Qwen/Qwen3-8B', { reasoning_content: ' two calls.' }, null, {}, { logprobs: null }),
        chunk('Qwen/Qwen3-8B', { tool_calls: [{ id: 'chatcmpl-tool-a1', type: 'function', index: 0, function: { name: 'get_weather' } }] }),
        chunk('Qwen/Qwen3-8B', { tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }),
        chunk('Qwen/Qwen3-8B', { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk('Qwen/Qwen3-8B', { tool_calls: [{ id: 'chatcmpl-tool-b2', type: 'function', index: 1, function: { name: 'get_weather' } }] }),
        chunk('Qwen/Qwen3-8B', { tool_calls: [{ index: 1, function: { arguments: '{"city": "Rome"}' } }] }),
        chunk('Qwen/Qwen3-8B', { content: '' }, 'tool_calls', {}, { logprobs: null, stop_reason: null }),
        usageChunk('Qwen/Qwen3-8B', usage(120, 40)),
        DONE,
      ],
    },
    expected: {
      sequence: ['reasoning-delta', 'tool-call', 'finish'],
      reasoning: 'Two cities, two calls.',
      toolCalls: [
        { id: 'chatcmpl-tool-a1', name: 'get_weather', arguments: '{"city": "Paris"}' },
        { id: 'chatcmpl-tool-b2', name: 'get_weather', arguments: '{"city": "Rome"}' },
      ],
      finish: { reason: 'tool_calls', usage: { inputTokens: 120, outputTokens: 40 } },
    },
  },
  {
    provider: 'llama.cpp',
    shape: 'usage and timings on the finishing chunk',
    script: {
      stream: [
        chunk('gpt-3.5-turbo', { role: 'assistant', content: null }, null, { system_fingerprint: 'b6000-abc' }),
        chunk('gpt-3.5-turbo', { reasoning_content: 'Short answer.' }, null, { system_fingerprint: 'b6000-abc' }),
        chunk('gpt-3.5-turbo', { content: 'Sunny' }, null, { system_fingerprint: 'b6000-abc' }),
        chunk('gpt-3.5-turbo', {}, 'stop', {
          system_fingerprint: 'b6000-abc',
          usage: usage(11, 3),
          timings: { prompt_n: 11, prompt_ms: 20.5, predicted_n: 3, predicted_ms: 40.1 },
        }),
        DONE,
      ],
    },
    expected: {
      sequence: ['reasoning-delta', 'text-delta', 'finish'],
      reasoning: 'Short answer.',
      text: 'Sunny',
      finish: { reason: 'stop', usage: { inputTokens: 11, outputTokens: 3 } },
    },
  },
  {
    provider: 'LM Studio',
    shape: 'reasoning deltas, a streamed tool call, usage last',
    script: {
      stream: [
        chunk('qwen/qwen3-8b', { role: 'assistant', reasoning: 'Look it up.' }, null, { system_fingerprint: 'qwen/qwen3-8b' }, { logprobs: null }),
        chunk('qwen/qwen3-8b', { tool_calls: [{ index: 0, id: '365174485', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, null, {
          system_fingerprint: 'qwen/qwen3-8b',
        }),
        chunk('qwen/qwen3-8b', { tool_calls: [{ index: 0, type: 'function', function: { arguments: args('Paris') } }] }, null, {
          system_fingerprint: 'qwen/qwen3-8b',
        }),
        chunk('qwen/qwen3-8b', {}, 'tool_calls', { system_fingerprint: 'qwen/qwen3-8b' }),
        usageChunk('qwen/qwen3-8b', usage(60, 20)),
        DONE,
      ],
    },
    expected: {
      sequence: ['reasoning-delta', 'tool-call', 'finish'],
      reasoning: 'Look it up.',
      toolCalls: [{ id: '365174485', name: 'get_weather', arguments: args('Paris') }],
      finish: { reason: 'tool_calls', usage: { inputTokens: 60, outputTokens: 20 } },
    },
  },
  {
    provider: 'OpenRouter',
    shape: '": OPENROUTER PROCESSING" comment lines, reasoning and reasoning_details deltas, usage with cost',
    script: {
      stream: [
        ': OPENROUTER PROCESSING\n\n',
        ': OPENROUTER PROCESSING\n\n',
        chunk(
          'deepseek/deepseek-r1',
          { role: 'assistant', content: '', reasoning: 'Hmm,', reasoning_details: [{ type: 'reasoning.text', text: 'Hmm,' }] },
          null,
          {
            provider: 'DeepInfra',
          },
        ),
        chunk('deepseek/deepseek-r1', {
          role: 'assistant',
          content: '',
          reasoning: ' sunny.',
          reasoning_details: [{ type: 'reasoning.text', text: ' sunny.' }],
        }),
        ': OPENROUTER PROCESSING\n\n',
        chunk('deepseek/deepseek-r1', { role: 'assistant', content: 'Sunny.', reasoning: null }),
        chunk('deepseek/deepseek-r1', { role: 'assistant', content: '' }, 'stop', {}, { native_finish_reason: 'stop' }),
        usageChunk('deepseek/deepseek-r1', { ...usage(14, 9), cost: 0.00002 }),
        DONE,
      ],
    },
    expected: {
      sequence: ['reasoning-delta', 'text-delta', 'finish'],
      reasoning: 'Hmm, sunny.',
      text: 'Sunny.',
      finish: { reason: 'stop', usage: { inputTokens: 14, outputTokens: 9 } },
    },
  },
  {
    provider: 'DeepSeek',
    shape: 'keep-alive comments, reasoning_content beside a null content, usage on the finishing chunk',
    script: {
      stream: [
        ': keep-alive\n\n',
        chunk(
          'deepseek-reasoner',
          { role: 'assistant', content: null, reasoning_content: '' },
          null,
          { system_fingerprint: 'fp_ds', usage: null },
          { logprobs: null },
        ),
        chunk('deepseek-reasoner', { content: null, reasoning_content: 'Paris first.' }, null, { usage: null }),
        chunk('deepseek-reasoner', { content: 'Sunny', reasoning_content: null }, null, { usage: null }),
        chunk('deepseek-reasoner', { content: '', reasoning_content: null }, 'stop', {
          usage: { ...usage(13, 7), prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 13, completion_tokens_details: { reasoning_tokens: 3 } },
        }),
        DONE,
      ],
    },
    expected: {
      sequence: ['reasoning-delta', 'text-delta', 'finish'],
      reasoning: 'Paris first.',
      text: 'Sunny',
      finish: { reason: 'stop', usage: { inputTokens: 13, outputTokens: 7 } },
    },
  },
  {
    provider: 'Gemini',
    shape: 'index-less whole tool calls in one delta, a thought signature on the first, finish_reason "stop"',
    script: {
      stream: [
        chunk(
          'gemini-3-pro-preview',
          {
            role: 'assistant',
            tool_calls: [
              {
                extra_content: { google: { thought_signature: 'EjQKMgEMOdbH==' } },
                function: { arguments: args('Paris'), name: 'get_weather' },
                id: 'function-call-1',
                type: 'function',
              },
              { function: { arguments: args('Rome'), name: 'get_weather' }, id: 'function-call-2', type: 'function' },
            ],
          },
          'stop',
          { usage: usage(40, 10) },
        ),
        DONE,
      ],
    },
    expected: {
      sequence: ['tool-call', 'finish'],
      toolCalls: [
        { id: 'function-call-1', name: 'get_weather', arguments: args('Paris'), extraContent: { google: { thought_signature: 'EjQKMgEMOdbH==' } } },
        { id: 'function-call-2', name: 'get_weather', arguments: args('Rome') },
      ],
      finish: { reason: 'tool_calls', usage: { inputTokens: 40, outputTokens: 10 } },
    },
  },
  {
    provider: 'Gemini',
    shape: 'index-less argument pieces, and the signature alone in a later delta (Vertex namespace)',
    script: {
      stream: [
        chunk('gemini-2.5-flash', {
          role: 'assistant',
          tool_calls: [{ id: 'fc-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }],
        }),
        chunk('gemini-2.5-flash', { tool_calls: [{ function: { arguments: '"Paris"}' } }] }),
        chunk('gemini-2.5-flash', { tool_calls: [{ extra_content: { vertex: { thought_signature: 'AY89a18=' } } }] }),
        chunk('gemini-2.5-flash', {}, 'stop', { usage: usage(9, 5) }),
        DONE,
      ],
    },
    expected: {
      toolCalls: [{ id: 'fc-1', name: 'get_weather', arguments: args('Paris'), extraContent: { vertex: { thought_signature: 'AY89a18=' } } }],
      finish: { reason: 'tool_calls', usage: { inputTokens: 9, outputTokens: 5 } },
    },
  },
  {
    provider: 'Groq',
    shape: 'usage under x_groq on the last chunk, a whole tool call in one chunk',
    script: {
      stream: [
        chunk(
          'llama-3.3-70b-versatile',
          { role: 'assistant', content: null },
          null,
          { system_fingerprint: 'fp_g', x_groq: { id: 'req_01' } },
          { logprobs: null },
        ),
        chunk('llama-3.3-70b-versatile', {
          tool_calls: [{ id: 'call_gq', type: 'function', index: 0, function: { name: 'get_weather', arguments: args('Paris') } }],
        }),
        chunk(
          'llama-3.3-70b-versatile',
          {},
          'tool_calls',
          { x_groq: { id: 'req_01', usage: { queue_time: 0.01, ...usage(210, 18), prompt_time: 0.02, completion_time: 0.05, total_time: 0.07 } } },
          { logprobs: null },
        ),
        DONE,
      ],
    },
    expected: {
      toolCalls: [{ id: 'call_gq', name: 'get_weather', arguments: args('Paris') }],
      finish: { reason: 'tool_calls', usage: { inputTokens: 210, outputTokens: 18 } },
    },
  },
  {
    provider: 'Mistral',
    shape: 'the tool call, finish_reason and usage in one chunk',
    script: {
      stream: [
        chunk('mistral-small-latest', { role: 'assistant', content: '' }),
        chunk(
          'mistral-small-latest',
          { tool_calls: [{ id: 'D681PevKs', function: { name: 'get_weather', arguments: '{"city": "Paris"}' }, index: 0 }] },
          'tool_calls',
          {
            usage: usage(82, 17),
          },
        ),
        DONE,
      ],
    },
    expected: {
      toolCalls: [{ id: 'D681PevKs', name: 'get_weather', arguments: '{"city": "Paris"}' }],
      finish: { reason: 'tool_calls', usage: { inputTokens: 82, outputTokens: 17 } },
    },
  },
  {
    provider: 'Anthropic (OpenAI compatibility)',
    shape: 'text, then a tool call streamed in fragments, usage last',
    script: {
      stream: [
        chunk('claude-sonnet-4-5', { role: 'assistant', content: 'Let me check.' }),
        chunk('claude-sonnet-4-5', { tool_calls: [{ index: 0, id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk('claude-sonnet-4-5', { tool_calls: [{ index: 0, function: { arguments: '{"city": "Pa' } }] }),
        chunk('claude-sonnet-4-5', { tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] }),
        chunk('claude-sonnet-4-5', {}, 'tool_calls'),
        usageChunk('claude-sonnet-4-5', usage(400, 60)),
        DONE,
      ],
    },
    expected: {
      sequence: ['text-delta', 'tool-call', 'finish'],
      text: 'Let me check.',
      toolCalls: [{ id: 'toolu_01A', name: 'get_weather', arguments: '{"city": "Paris"}' }],
      finish: { reason: 'tool_calls', usage: { inputTokens: 400, outputTokens: 60 } },
    },
  },
  {
    provider: 'A compatible server',
    shape: 'CRLF line ends and "data:" without a space',
    script: {
      stream: [
        `data:${JSON.stringify(chunk('local', { role: 'assistant', content: 'Hi' }))}\r\n\r\n`,
        `data:${JSON.stringify(chunk('local', { content: ' there' }))}\r\n\r\n`,
        `data:${JSON.stringify(chunk('local', {}, 'stop', { usage: usage(2, 2) }))}\r\n\r\n`,
        'data:[DONE]\r\n\r\n',
      ],
    },
    expected: { text: 'Hi there', finish: { reason: 'stop', usage: { inputTokens: 2, outputTokens: 2 } } },
  },
];

describe('provider conformance: streams', () => {
  it.each(fixtures)('$provider: $shape', async ({ script, expected }) => {
    fake.enqueue(script);
    const seen = await run(model().stream(request));
    expect(seen).toMatchObject(expected);
    // Tool calls are compared whole: nothing is added (an empty extraContent) or lost.
    if (expected.toolCalls) expect(seen.toolCalls).toEqual(expected.toolCalls);
  });
});

/** Refuses, as Gemini 3 does, an assistant tool call whose thought signature did not come back. */
const geminiRefusesUnsigned =
  (reply: Script): Script =>
  (req: RecordedRequest) => {
    const calls = (req.body.messages as { role: string; tool_calls?: { extra_content?: { google?: { thought_signature?: string } } }[] }[])
      .filter((m) => m.role === 'assistant')
      .flatMap((m) => m.tool_calls ?? []);
    if (calls[0] && calls[0].extra_content?.google?.thought_signature !== 'EjQKMgEMOdbH==') {
      const message =
        'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2.';
      return { status: 400, body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }] };
    }
    return reply;
  };

describe('provider conformance: what goes back', () => {
  it('Gemini: the thought signature goes back on the tool call, and its 400 is read from the array body', async () => {
    fake.enqueue(fixtures.find((f) => f.provider === 'Gemini')!.script);
    const first = await run(model().stream(request));
    const history: ChatRequest['messages'] = [
      ...request.messages,
      { role: 'assistant', content: null, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'function-call-1', content: '{"sky":"sunny"}' },
      { role: 'tool', toolCallId: 'function-call-2', content: '{"sky":"rain"}' },
    ];
    const answer: RawStreamScript = { stream: [chunk('gemini-3-pro-preview', { role: 'assistant', content: 'Sunny, then rain.' }, 'stop'), DONE] };
    fake.enqueue(geminiRefusesUnsigned(answer));
    expect((await run(model().stream({ ...request, messages: history }))).text).toBe('Sunny, then rain.');
    expect(fake.chatRequests[1]!.body.messages[1].tool_calls[0]).toEqual({
      id: 'function-call-1',
      type: 'function',
      function: { name: 'get_weather', arguments: args('Paris') },
      extra_content: { google: { thought_signature: 'EjQKMgEMOdbH==' } },
    });
    expect(fake.chatRequests[1]!.body.messages[1].tool_calls[1]).not.toHaveProperty('extra_content');

    // Without it, the refusal says why, not "400 status code (no body)".
    const unsigned = history.map((m) => (m.role === 'assistant' ? { ...m, toolCalls: first.toolCalls.map(({ extraContent: _dropped, ...call }) => call) } : m));
    fake.enqueue(geminiRefusesUnsigned(answer));
    const error = await failure(run(model().stream({ ...request, messages: unsigned })));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain('HTTP 400');
    expect((error as ModelError).message).toContain('Function call is missing a thought_signature');
  });

  it('DeepSeek: reasoning is not sent back by default (deepseek-reasoner answers 400 when it is)', async () => {
    fake.enqueue(fixtures.find((f) => f.provider === 'DeepSeek')!.script);
    const first = await run(model('deepseek-reasoner').stream({ messages: [{ role: 'user', content: 'Weather?' }] }));
    fake.enqueue(deepseekThinking({ stream: [chunk('deepseek-reasoner', { role: 'assistant', content: 'Still sunny.' }, 'stop'), DONE] }));
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: first.text, toolCalls: [{ id: 'call_0', name: 'get_weather', arguments: args('Paris') }], reasoning: first.reasoning },
      { role: 'tool', toolCallId: 'call_0', content: 'sunny' },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'user', content: 'And tomorrow?' },
    ];
    expect((await run(model('deepseek-reasoner').stream({ messages, tools: [weatherTool] }))).text).toBe('Still sunny.');
    expect(JSON.stringify(fake.chatRequests[1]!.body)).not.toContain('reasoning_content');
  });

  describe('DeepSeek thinking mode with tool calls (sendReasoning "tool-loop")', () => {
    const thinking = () =>
      createOpenAIModel({
        provider: 'deepseek',
        model: 'deepseek-v4-pro',
        baseUrl: fake.url,
        apiKey: 'key',
        timeoutMs: 5000,
        maxRetries: 0,
        retryBaseMs: 1,
        reasoning: 'tool-loop',
      });
    const call = (id: string, city: string): ToolCall => ({ id, name: 'get_weather', arguments: args(city) });
    const answer: Script = { stream: [chunk('deepseek-v4-pro', { role: 'assistant', content: 'Rainy in Rome.' }, 'stop'), DONE] };
    /** An earlier turn that used a tool, then this turn's loop: two tool calls, each after its own reasoning. */
    const conversation: ChatRequest['messages'] = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, toolCalls: [call('call_1', 'Paris')], reasoning: 'Look Paris up.' },
      { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'user', content: 'And Rome, then Milan?' },
      { role: 'assistant', content: null, toolCalls: [call('call_2', 'Rome')], reasoning: 'Rome first.' },
      { role: 'tool', toolCallId: 'call_2', content: 'rainy' },
      { role: 'assistant', content: 'Now Milan.', toolCalls: [call('call_3', 'Milan')], reasoning: 'Then Milan.' },
      { role: 'tool', toolCallId: 'call_3', content: 'rainy' },
    ];

    it('sends each tool call of the current loop back with its reasoning, and no earlier turn’s', async () => {
      fake.enqueue(deepseekThinking(answer));
      expect((await run(thinking().stream({ messages: conversation, tools: [weatherTool] }))).text).toBe('Rainy in Rome.');
      const sent = fake.chatRequests[0]!.body.messages as { role: string; reasoning_content?: string }[];
      expect(sent.map((m) => m.reasoning_content ?? null)).toEqual([null, null, null, null, null, 'Rome first.', null, 'Then Milan.', null]);
    });

    it('the fake DeepSeek refuses a request with an earlier turn’s reasoning, and one missing the current loop’s', async () => {
      // The same conversation through the default model, which sends no reasoning: the loop's is missing.
      fake.enqueue(deepseekThinking(answer));
      const missing = await failure(run(model('deepseek-v4-pro').stream({ messages: conversation, tools: [weatherTool] })));
      expect((missing as ModelError).message).toContain('Missing `reasoning_content` field in the assistant message at message index 5');

      // An earlier turn's reasoning, as a client that keeps every message whole would send it.
      fake.enqueue(deepseekThinking(answer));
      const wire = JSON.parse(fake.chatRequests[0]!.raw) as { messages: Record<string, unknown>[] };
      wire.messages[1]!.reasoning_content = 'Look Paris up.';
      wire.messages[5]!.reasoning_content = 'Rome first.';
      wire.messages[7]!.reasoning_content = 'Then Milan.';
      const response = await fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(wire),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('reasoning_content of message 1 is from an earlier turn');
    });
  });
});

describe('provider conformance: errors and retries', () => {
  it('OpenRouter: an error chunk in the middle of a 200 stream ends it with the provider’s message', async () => {
    fake.enqueue({
      stream: [
        ': OPENROUTER PROCESSING\n\n',
        chunk('openai/gpt-4o', { role: 'assistant', content: 'Sun' }),
        {
          id: 'gen-1',
          object: 'chat.completion.chunk',
          created: 1_760_000_000,
          model: 'openai/gpt-4o',
          provider: 'OpenAI',
          error: { code: 'server_error', message: 'Provider disconnected unexpectedly' },
          choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
        },
        DONE,
      ],
    });
    const error = await failure(run(model().stream(request)));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain('Provider disconnected unexpectedly');
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('Anthropic (OpenAI compatibility): an error event before any output, as its own shape', async () => {
    fake.enqueue({ stream: ['event: error\n', `data: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`] });
    const error = await failure(run(model().stream(request)));
    expect((error as ModelError).message).toContain('Overloaded');
  });

  it.each<{ provider: string; status: number; headers: Record<string, string>; waits: number }>([
    { provider: 'OpenAI', status: 429, headers: { 'retry-after-ms': '120', 'x-ratelimit-remaining-requests': '0' }, waits: 110 },
    { provider: 'Azure OpenAI', status: 429, headers: { 'retry-after-ms': '120', 'retry-after': '1' }, waits: 110 },
    { provider: 'Anthropic (OpenAI compatibility)', status: 529, headers: {}, waits: 0 },
    { provider: 'Groq', status: 503, headers: { 'retry-after': '0.1' }, waits: 90 },
  ])('$provider: $status is retried (waiting as the provider asks), then the answer streams', async ({ status, headers, waits }) => {
    fake.enqueue({ status, headers, error: { message: 'busy' } }, { stream: [chunk('m', { role: 'assistant', content: 'ok' }, 'stop'), DONE] });
    const started = Date.now();
    const seen = await run(model().stream(request));
    expect(Date.now() - started).toBeGreaterThanOrEqual(waits);
    expect(seen.text).toBe('ok');
    expect(fake.chatRequests).toHaveLength(2);
  });
});
