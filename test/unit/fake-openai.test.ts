import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeEmbedding, splitWords, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

let fake: FakeOpenAI;
let client: OpenAI;
let noRetryClient: OpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  client = new OpenAI({ baseURL: fake.url, apiKey: 'test' });
  noRetryClient = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
});

afterEach(() => {
  const pending = fake.pending;
  fake.reset();
  expect(pending, 'every scripted reply should be consumed').toBe(0);
});

afterAll(async () => {
  await fake.close();
});

const streamParams = (extra: Partial<ChatCompletionCreateParamsStreaming> = {}): ChatCompletionCreateParamsStreaming => ({
  model: 'gpt-test',
  messages: [{ role: 'user', content: 'hello there' }],
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
});

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Assembles streamed tool calls by index, the way a consumer of the raw chunks must. */
function assembleToolCalls(chunks: ChatCompletionChunk[]) {
  const calls: { id?: string; name?: string; arguments: string; fragments: number }[] = [];
  for (const chunk of chunks) {
    for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
      const call = (calls[delta.index] ??= { arguments: '', fragments: 0 });
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name = delta.function.name;
      if (delta.function?.arguments) {
        call.arguments += delta.function.arguments;
        call.fragments++;
      }
    }
  }
  return calls;
}

describe('fake OpenAI: streamed text', () => {
  it('streams chunks in the real shape, with a trailing usage chunk', async () => {
    fake.enqueue({ text: 'Hello there, how are you?' });
    const chunks = await collect(await client.chat.completions.create(streamParams()));

    const choiceChunks = chunks.filter((c) => c.choices.length > 0);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe('gpt-test');
      expect(typeof chunk.created).toBe('number');
      expect(chunk.system_fingerprint).toBeTruthy();
    }
    expect(choiceChunks[0]!.choices[0]).toMatchObject({ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null });
    expect(choiceChunks.map((c) => c.choices[0]!.delta.content ?? '').join('')).toBe('Hello there, how are you?');
    expect(choiceChunks.length).toBeGreaterThan(3);

    const last = choiceChunks.at(-1)!.choices[0]!;
    expect(last.delta).toEqual({});
    expect(last.finish_reason).toBe('stop');
    expect(choiceChunks.every((c) => c.usage === null)).toBe(true);

    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: 5 });
    expect(usageChunk.usage!.total_tokens).toBe(usageChunk.usage!.prompt_tokens + usageChunk.usage!.completion_tokens);
  });

  it('omits usage without include_usage and honours explicit chunks, usage and finishReason', async () => {
    fake.enqueue({ text: ['Hel', 'lo'], finishReason: 'length' }, { text: 'x', usage: { prompt_tokens: 11, completion_tokens: 7 } });

    const plain = await collect(await client.chat.completions.create(streamParams({ stream_options: null })));
    expect(plain.every((c) => !('usage' in c))).toBe(true);
    expect(plain.map((c) => c.choices[0]!.delta.content ?? '')).toEqual(['', 'Hel', 'lo', '']);
    expect(plain.at(-1)!.choices[0]!.finish_reason).toBe('length');

    const withUsage = await collect(await client.chat.completions.create(streamParams()));
    expect(withUsage.at(-1)!.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('splits plain strings into word chunks that rejoin exactly', () => {
    for (const text of ['Hello world', '  leading and trailing  ', 'line\nbreaks\n\nhere', '', 'one']) {
      expect(splitWords(text).join('')).toBe(text);
    }
    expect(splitWords('a b c')).toEqual(['a', ' b', ' c']);
  });

  it('streams JSON for structured output', async () => {
    fake.enqueue({ json: { answer: 42, tags: ['a', 'b'] } });
    const chunks = await collect(
      await client.chat.completions.create(
        streamParams({
          response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
        }),
      ),
    );
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(JSON.parse(content)).toEqual({ answer: 42, tags: ['a', 'b'] });
    expect(fake.requests[0]!.body.response_format.type).toBe('json_schema');
  });

  it('paces chunks with delayMs', async () => {
    fake.enqueue({ text: ['a', 'b', 'c'], delayMs: 30 });
    const started = Date.now();
    await collect(await client.chat.completions.create(streamParams()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe('fake OpenAI: tool calls', () => {
  it('streams parallel tool calls that assemble by index, including invalid JSON arguments', async () => {
    fake.enqueue({
      toolCalls: [
        { id: 'call_weather', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
        { name: 'search', arguments: { query: 'rem sleep' } },
        { name: 'broken', arguments: '{"oops": ' },
      ],
    });
    const chunks = await collect(await client.chat.completions.create(streamParams()));
    const calls = assembleToolCalls(chunks);

    expect(calls.map(({ id, name, arguments: args }) => ({ id, name, args }))).toEqual([
      { id: 'call_weather', name: 'get_weather', args: '{"city":"Paris","unit":"celsius"}' },
      { id: expect.stringMatching(/^call_/), name: 'search', args: '{"query":"rem sleep"}' },
      { id: expect.stringMatching(/^call_/), name: 'broken', args: '{"oops": ' },
    ]);
    expect(calls.every((c) => c.fragments > 1)).toBe(true);

    const toolChunks = chunks.filter((c) => c.choices[0]?.delta.tool_calls);
    const first = toolChunks[0]!.choices[0]!.delta;
    expect(first).toMatchObject({
      role: 'assistant',
      tool_calls: [{ index: 0, id: 'call_weather', type: 'function', function: { name: 'get_weather', arguments: '' } }],
    });
    const continuation = toolChunks[1]!.choices[0]!.delta.tool_calls![0]!;
    expect(Object.keys(continuation).sort()).toEqual(['function', 'index']);
    expect(Object.keys(continuation.function!)).toEqual(['arguments']);

    const finish = chunks.find((c) => c.choices[0]?.finish_reason)!;
    expect(finish.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).not.toBeNull();
  });

  it("is understood by the SDK's own stream accumulator", async () => {
    fake.enqueue({ text: 'Let me check.', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"id":7}' }] });
    const stream = client.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'look up 7' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'number' } } } } }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Let me check.');
    expect(choice.message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } }]);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(fake.requests[0]!.body.tools[0].function.name).toBe('lookup');
  });
});

describe('fake OpenAI: non-streaming', () => {
  it('returns a chat.completion with content and usage', async () => {
    fake.enqueue({ text: 'Plain answer', usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Plain answer' } });
    expect(completion.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  });

  it('returns tool_calls with null content', async () => {
    fake.enqueue({
      toolCalls: [
        { id: 'call_a', name: 'a', arguments: '{}' },
        { id: 'call_b', name: 'b', arguments: 'not json' },
      ],
    });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'a', arguments: '{}' } },
      { id: 'call_b', type: 'function', function: { name: 'b', arguments: 'not json' } },
    ]);
  });
});

describe('fake OpenAI: errors', () => {
  it('surfaces a scripted 429 with retry-after as an APIError', async () => {
    fake.enqueue({ status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after': '1' } });
    const error = await noRetryClient.chat.completions.create(streamParams()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(429);
    expect(apiError.headers?.get('retry-after')).toBe('1');
    expect(apiError.error).toEqual({ message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' });
  });

  it('surfaces a scripted 500 as an APIError', async () => {
    fake.enqueue({ status: 500 });
    const error = await noRetryClient.chat.completions.create({ model: 'gpt-test', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe('server_error');
  });

  it('fails loudly, without SDK retries, when no reply is scripted', async () => {
    const error = await client.chat.completions.create(streamParams()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((error as Error).message).toMatch(/no scripted reply/);
    expect(fake.requests).toHaveLength(1);
  });

  it('lets a retrying client recover after a scripted error', async () => {
    fake.enqueue({ status: 500, headers: { 'retry-after-ms': '1' } }, { text: 'recovered' });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('recovered');
    expect(fake.chatRequests).toHaveLength(2);
  });
});

describe('fake OpenAI: scripting and recording', () => {
  it('consumes scripts FIFO and supports dynamic replies', async () => {
    fake.enqueue(
      { text: 'first' },
      (request) => ({ text: `you said: ${request.body.messages.at(-1).content}` }),
      async () => ({ text: 'third' }),
    );
    const ask = async (content: string) =>
      (await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content }] })).choices[0]!.message.content;
    expect(await ask('a')).toBe('first');
    expect(await ask('echo me')).toBe('you said: echo me');
    expect(await ask('c')).toBe('third');
  });

  it('records every request with path, headers and parsed body', async () => {
    fake.enqueue({ text: 'ok' });
    const pending = client.chat.completions.create(
      streamParams({
        model: 'my-model',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        temperature: 0,
      }),
    );
    const [request] = await fake.waitForRequests(1);
    await collect(await pending);

    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer test');
    expect(request!.headers['content-type']).toMatch(/application\/json/);
    expect(request!.body).toMatchObject({
      model: 'my-model',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('waitForRequests times out with a clear message', async () => {
    await expect(fake.waitForRequests(1, 50)).rejects.toThrow(/expected 1 request/);
  });

  it('lists the models requested so far', async () => {
    fake.enqueue({ text: 'ok' });
    await client.chat.completions.create({ model: 'seen-model', messages: [{ role: 'user', content: 'hi' }] });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['fake-model', 'seen-model']));
    expect((await client.models.retrieve('seen-model')).id).toBe('seen-model');
  });
});

describe('fake OpenAI: hanging streams', () => {
  it('hangs after the first chunk until the client aborts', async () => {
    fake.enqueue({ text: 'never finishes', hang: true }, { text: 'next' });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(streamParams(), { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();

    const first = await iterator.next();
    expect(first.value?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: '' });
    const second = iterator.next();
    const outcome = await Promise.race([second.then(() => 'settled'), new Promise((r) => setTimeout(() => r('hanging'), 100))]);
    expect(outcome).toBe('hanging');

    controller.abort();
    // The SDK ends an aborted stream quietly rather than throwing.
    expect(await second).toEqual({ done: true, value: undefined });

    // The fake keeps serving after an aborted request.
    const next = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(next.choices[0]!.message.content).toBe('next');
  });

  it('hangs a non-streaming request until the client aborts', async () => {
    fake.enqueue({ text: 'never sent', hang: true });
    const controller = new AbortController();
    const pending = client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal });
    await fake.waitForRequests(1);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('stallAfterChunks stalls mid-stream; close() drops hanging connections', async () => {
    const local = await startFakeOpenAI();
    const localClient = new OpenAI({ baseURL: local.url, apiKey: 'test', maxRetries: 0 });
    local.enqueue({ text: ['a', 'b', 'c', 'd'], stallAfterChunks: 3 });
    const stream = await localClient.chat.completions.create(streamParams());
    const received: string[] = [];
    let closing: Promise<void> | undefined;
    const consumed = (async () => {
      for await (const chunk of stream) {
        received.push(chunk.choices[0]?.delta.content ?? '');
        if (received.length === 3) closing = local.close();
      }
    })();
    await expect(consumed).rejects.toThrow(/terminated/);
    await closing;
    expect(received).toEqual(['', 'a', 'b']);
  });
});

describe('fake OpenAI: embeddings', () => {
  it('returns deterministic normalised embeddings through the SDK (base64 default)', async () => {
    const response = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['the cat sat', 'quantum physics'] });
    expect(response.object).toBe('list');
    expect(response.model).toBe('text-embedding-3-small');
    expect(response.data.map((d) => d.index)).toEqual([0, 1]);
    const [cat, physics] = response.data.map((d) => d.embedding);
    expect(cat).toHaveLength(1536);
    expect(Math.hypot(...cat!)).toBeCloseTo(1, 5);
    expect(cat![0]).toBeCloseTo(fakeEmbedding('the cat sat')[0]!, 6);
    expect(response.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(physics).not.toEqual(cat);
  });

  it('honours dimensions and float encoding; shared words mean closer vectors', async () => {
    const response = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a cat on a mat', 'my cat on the mat', 'stock market report'],
      dimensions: 64,
      encoding_format: 'float',
    });
    const [a, b, c] = response.data.map((d) => d.embedding);
    expect(a).toHaveLength(64);
    expect(a).toEqual(fakeEmbedding('a cat on a mat', 64));
    const dot = (x: number[], y: number[]) => x.reduce((sum, v, i) => sum + v * y[i]!, 0);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
    expect(fake.requests[0]!.body).toMatchObject({ dimensions: 64, encoding_format: 'float' });
  });

  it('failNext makes the next embeddings call fail', async () => {
    fake.failNext('/v1/embeddings', 503);
    const error = await noRetryClient.embeddings.create({ model: 'e', input: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    await expect(noRetryClient.embeddings.create({ model: 'e', input: 'x' })).resolves.toMatchObject({ object: 'list' });
  });

  it('holdNext leaves the next matching embeddings call unanswered until released', async () => {
    const hold = fake.holdNext('embeddings', (r) => r.body.input === 'x');
    let answered = false;
    const held = client.embeddings.create({ model: 'e', input: 'x' }).then(() => (answered = true));
    expect((await hold.reached).body.input).toBe('x');
    await expect(client.embeddings.create({ model: 'e', input: 'y' })).resolves.toMatchObject({ object: 'list' });
    expect(answered).toBe(false);
    hold.release();
    await held;
    expect(answered).toBe(true);
  });
});
