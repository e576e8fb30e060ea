import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ModelError, RateLimitedError } from '../../src/errors.js';
import { isAbortError, type ChatModel, type ChatRequest, type ChatStreamPart } from '../../src/llm/chat-model.js';
import { createOpenAIModel, type OpenAIModelOptions } from '../../src/llm/openai.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

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

const model = (overrides: Partial<OpenAIModelOptions> = {}): ChatModel =>
  createOpenAIModel({
    provider: 'fake',
    model: 'fake-model',
    baseUrl: fake.url,
    apiKey: 'test-key',
    timeoutMs: 5000,
    maxRetries: 2,
    retryBaseMs: 1,
    ...overrides,
  });

const hello: ChatRequest = { messages: [{ role: 'user', content: 'hello' }] };

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the stream to fail');
}

const text = (parts: ChatStreamPart[]) =>
  parts
    .filter((p) => p.type === 'text-delta')
    .map((p) => p.delta)
    .join('');
const toolCalls = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));

describe('OpenAI chat model: streaming', () => {
  it('reports the request body first, exactly as the provider received it', async () => {
    fake.enqueue({ text: 'ok' });
    const parts = await collect(model().stream({ ...hello, temperature: 0.25, maxTokens: 50 }));
    expect(parts[0]).toEqual({ type: 'request', body: fake.chatRequests[0]!.raw });
    expect(JSON.parse(fake.chatRequests[0]!.raw)).toMatchObject({ temperature: 0.25, max_tokens: 50 });
  });

  it.each(['reasoning_content', 'reasoning'] as const)('streams %s deltas as reasoning before the answer', async (field) => {
    fake.enqueue({ reasoning: 'Let me think. The user greets.', reasoningField: field, text: 'Hello!' });
    const parts = await collect(model().stream(hello));
    const reasoning = parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.delta] : []));
    expect(reasoning.join('')).toBe('Let me think. The user greets.');
    expect(reasoning.length).toBeGreaterThan(1);
    expect(text(parts)).toBe('Hello!');
    expect(parts.findLastIndex((p) => p.type === 'reasoning-delta')).toBeLessThan(parts.findIndex((p) => p.type === 'text-delta'));
  });

  it('streams text deltas that join to the reply, then finish with the usage chunk', async () => {
    fake.enqueue({ text: 'Hello there, how are you today?', usage: { prompt_tokens: 12, completion_tokens: 7 } });
    const m = model();
    expect(m).toMatchObject({ provider: 'fake', model: 'fake-model', id: 'fake:fake-model', isDemo: false });

    const parts = await collect(m.stream(hello));

    expect(text(parts)).toBe('Hello there, how are you today?');
    expect(parts.filter((p) => p.type === 'text-delta').length).toBeGreaterThan(1);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 12, outputTokens: 7 } });
    const body = fake.chatRequests[0]!.body;
    expect(body).toMatchObject({ model: 'fake-model', stream: true, stream_options: { include_usage: true } });
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(fake.chatRequests[0]!.headers.authorization).toBe('Bearer test-key');
  });

  it('maps messages to the wire format', async () => {
    fake.enqueue({ text: 'ok' });
    await collect(
      model().stream({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'find x' },
          { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }] },
          { role: 'tool', toolCallId: 'c1', content: 'found' },
          { role: 'assistant', content: null },
        ],
      }),
    );
    expect(fake.chatRequests[0]!.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'find x' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
      { role: 'assistant', content: '' },
    ]);
  });

  it('sends tools as function specs and assembles one tool call', async () => {
    fake.enqueue({ toolCalls: [{ id: 'call_a', name: 'search', arguments: { query: 'weather in Paris', limit: 3 } }] });
    const parameters = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };

    const parts = await collect(model().stream({ ...hello, tools: [{ name: 'search', description: 'Search things', parameters }] }));

    expect(toolCalls(parts)).toEqual([{ id: 'call_a', name: 'search', arguments: '{"query":"weather in Paris","limit":3}' }]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    expect(parts.map((p) => p.type)).toEqual(['request', 'tool-call', 'finish']);
    const body = fake.chatRequests[0]!.body;
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'search', description: 'Search things', parameters } }]);
    expect(body.tool_choice).toBe('auto');
  });

  it('assembles parallel tool calls in index order, after any text', async () => {
    fake.enqueue({
      text: 'Let me check.',
      toolCalls: [
        { id: 'call_1', name: 'search', arguments: { q: 'one' } },
        { id: 'call_2', name: 'lookup', arguments: { key: 'two-keys-here' } },
        { id: 'call_3', name: 'search', arguments: {} },
      ],
    });
    const parts = await collect(model().stream(hello));
    expect(text(parts)).toBe('Let me check.');
    expect(toolCalls(parts)).toEqual([
      { id: 'call_1', name: 'search', arguments: '{"q":"one"}' },
      { id: 'call_2', name: 'lookup', arguments: '{"key":"two-keys-here"}' },
      { id: 'call_3', name: 'search', arguments: '{}' },
    ]);
    expect(parts.slice(-4).map((p) => p.type)).toEqual(['tool-call', 'tool-call', 'tool-call', 'finish']);
  });

  it('passes malformed tool arguments through verbatim', async () => {
    fake.enqueue({ toolCalls: [{ id: 'bad', name: 'search', arguments: '{"q": "unterminated' }] });
    const parts = await collect(model().stream(hello));
    expect(toolCalls(parts)).toEqual([{ id: 'bad', name: 'search', arguments: '{"q": "unterminated' }]);
  });

  it('sends response_format, temperature and max_tokens', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    fake.enqueue({ json: { answer: 'yes' }, finishReason: 'length' });
    const parts = await collect(
      model().stream({
        ...hello,
        temperature: 0.2,
        maxTokens: 50,
        responseFormat: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
      }),
    );
    expect(JSON.parse(text(parts))).toEqual({ answer: 'yes' });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'length' });
    const body = fake.chatRequests[0]!.body;
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } });
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBe(50);
  });

  it('sends top_p, stop, seed and a json_object response_format; leaves out what was not asked', async () => {
    fake.enqueue({ json: {} }, { text: 'plain' });
    await collect(model().stream({ ...hello, topP: 0.5, stop: ['END'], seed: 7, responseFormat: { type: 'json_object' } }));
    await collect(model().stream(hello));
    const [asked, plain] = fake.chatRequests.map((r) => r.body);
    expect(asked).toMatchObject({ top_p: 0.5, stop: ['END'], seed: 7, response_format: { type: 'json_object' } });
    for (const key of ['top_p', 'stop', 'seed', 'response_format', 'temperature', 'max_tokens']) expect(plain).not.toHaveProperty(key);
  });

  it('sends no Authorization header for a keyless provider', async () => {
    fake.enqueue({ text: 'ok' });
    await collect(model({ apiKey: null }).stream(hello));
    expect(fake.chatRequests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('OpenAI chat model: failures and retries', () => {
  it('retries a 500 and returns one result', async () => {
    fake.enqueue({ status: 500, error: { message: 'upstream hiccup' } }, { text: 'recovered fine' });
    const parts = await collect(model().stream(hello));
    expect(text(parts)).toBe('recovered fine');
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(fake.chatRequests).toHaveLength(2);
  });

  it('honours retry-after-ms on 429, then succeeds', async () => {
    fake.enqueue({ status: 429, error: { message: 'slow down' }, headers: { 'retry-after-ms': '150' } }, { text: 'ok' });
    const started = Date.now();
    const parts = await collect(model().stream(hello));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(text(parts)).toBe('ok');
    expect(fake.chatRequests).toHaveLength(2);
  });

  it('honours retry-after in seconds', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '0.1' } }, { text: 'ok' });
    const started = Date.now();
    await collect(model().stream(hello));
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('throws ModelError with status and provider message when 500 persists', async () => {
    fake.enqueue(...Array.from({ length: 3 }, () => ({ status: 500, error: { message: 'The server had an error' } })));
    const error = await failure(collect(model().stream(hello)));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ name: 'ModelError', code: 'MODEL_ERROR', status: 500, retryable: true });
    const message = (error as Error).message;
    expect(message).toContain('fake:fake-model');
    expect(message).toContain('HTTP 500');
    expect(message).toContain('The server had an error');
    expect(message).toContain('3 attempts');
    expect(fake.chatRequests).toHaveLength(3);
  });

  it('throws RateLimitedError when 429 persists', async () => {
    fake.enqueue(...Array.from({ length: 3 }, () => ({ status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after-ms': '5' } })));
    const error = await failure(collect(model().stream(hello)));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 5 });
    expect((error as Error).message).toContain('Rate limit reached');
    expect(fake.chatRequests).toHaveLength(3);
  });

  it('does not retry quota exhaustion (429 insufficient_quota)', async () => {
    fake.enqueue({ status: 429, error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } });
    const error = await failure(collect(model().stream(hello)));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 429, retryable: false });
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('does not retry a 400, and says so with the provider message', async () => {
    fake.enqueue({ status: 400, error: { message: "Invalid schema for response_format 'x'" } });
    const error = await failure(collect(model().stream(hello)));
    expect(error).toMatchObject({ name: 'ModelError', status: 400, retryable: false });
    expect((error as Error).message).toContain("Invalid schema for response_format 'x'");
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('hints at the key variable on 401', async () => {
    fake.enqueue({ status: 401, error: { message: 'Incorrect API key provided' } });
    const error = await failure(collect(model({ apiKeyEnv: 'FAKE_API_KEY' }).stream(hello)));
    expect((error as Error).message).toMatch(/HTTP 401.*Incorrect API key provided.*FAKE_API_KEY/);
  });

  it('obeys x-should-retry: false', async () => {
    fake.enqueue({ status: 503, headers: { 'x-should-retry': 'false' } });
    await expect(collect(model().stream(hello))).rejects.toMatchObject({ status: 503 });
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('ends with an abort error when the signal aborts mid-stream', async () => {
    fake.enqueue({ text: 'one two three four', stallAfterChunks: 2 });
    const controller = new AbortController();
    const seen: ChatStreamPart[] = [];
    const error = await failure(
      (async () => {
        for await (const part of model().stream({ ...hello, signal: controller.signal })) {
          seen.push(part);
          if (part.type === 'text-delta') controller.abort();
        }
      })(),
    );
    expect(isAbortError(error)).toBe(true);
    expect(error).not.toBeInstanceOf(ModelError);
    expect(seen.slice(1)).toEqual([{ type: 'text-delta', delta: 'one' }]);
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('closes the provider’s connection when the consumer stops reading early', async () => {
    fake.enqueue({ text: 'one two three', stallAfterChunks: 2 });
    for await (const part of model().stream(hello)) if (part.type === 'text-delta') break;
    // The fake keeps a hanging stream open until the client goes: this resolves only if it went.
    await fake.chatRequests[0]!.closed;
  });

  it('ends with an abort error when aborted while the provider hangs', async () => {
    fake.enqueue({ text: 'never finished', hang: true });
    const controller = new AbortController();
    const pending = failure(collect(model().stream({ ...hello, signal: controller.signal })));
    await fake.waitForRequests(1);
    controller.abort();
    expect(isAbortError(await pending)).toBe(true);
  });

  it('ends with an abort error when aborted during a retry wait', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after-ms': '5000' } });
    const controller = new AbortController();
    const pending = failure(collect(model().stream({ ...hello, signal: controller.signal })));
    await fake.waitForRequests(1);
    setTimeout(() => controller.abort(), 20);
    expect(isAbortError(await pending)).toBe(true);
  });

  it('times out a stalled stream and retries while nothing was streamed', async () => {
    fake.enqueue({ text: 'stalled', hang: true }, { text: 'second try' });
    const parts = await collect(model({ timeoutMs: 150 }).stream(hello));
    expect(text(parts)).toBe('second try');
    expect(fake.chatRequests).toHaveLength(2);
  });

  it('times out slow response headers', async () => {
    fake.enqueue({ status: 500, delayMs: 2000 });
    const error = await failure(collect(model({ timeoutMs: 100, maxRetries: 0 }).stream(hello)));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toContain('no response from fake within 100 ms');
    expect(error).toMatchObject({ retryable: true });
  });

  it('never retries once text was streamed: a stall after partial output is a ModelError', async () => {
    fake.enqueue({ text: 'partial answer that stalls', stallAfterChunks: 3 }, { text: 'must not be requested' });
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const part of model({ timeoutMs: 150 }).stream(hello)) if (part.type === 'text-delta') seen.push(part.delta);
      })(),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toContain('not retried');
    expect(seen.join('')).toBe('partial answer');
    expect(fake.chatRequests).toHaveLength(1);
    fake.reset();
  });

  it('never retries once text was streamed: a dropped connection is a ModelError', async () => {
    const own = await startFakeOpenAI();
    own.enqueue({ text: 'partial answer then the server dies', stallAfterChunks: 3 });
    const m = createOpenAIModel({ provider: 'own', model: 'm', baseUrl: own.url, apiKey: 'k', timeoutMs: 5000, maxRetries: 3, retryBaseMs: 1 });
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const part of m.stream(hello)) {
          if (part.type !== 'text-delta') continue;
          seen.push(part.delta);
          if (seen.length === 2) void own.close();
        }
      })(),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toMatch(/connection to own .* failed.*not retried/);
    expect(seen.join('')).toBe('partial answer');
    expect(own.chatRequests).toHaveLength(1);
  });

  it('reports an unreachable endpoint as a connection failure', async () => {
    const m = createOpenAIModel({
      provider: 'gone',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
      timeoutMs: 2000,
      maxRetries: 1,
      retryBaseMs: 1,
    });
    const error = await failure(collect(m.stream(hello)));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toMatch(/connection to gone at http:\/\/127\.0\.0\.1:9\/v1 failed after 2 attempts/);
  });
});
