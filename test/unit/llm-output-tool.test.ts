import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest, ChatStreamPart } from '../../src/llm/chat-model.js';
import { createOpenAIModel } from '../../src/llm/openai.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type Script } from '../support/fake-openai.js';

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

let models = 0;
/** A model name of its own per test: a refusal is remembered per base URL and model for the process. */
const model = (structuredOutput?: 'json_schema' | 'tool') =>
  createOpenAIModel({
    provider: 'compat',
    model: `old-model-${++models}`,
    baseUrl: fake.url,
    apiKey: 'key',
    timeoutMs: 5000,
    maxRetries: 0,
    retryBaseMs: 1,
    structuredOutput,
  });

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const structured: ChatRequest = {
  messages: [{ role: 'user', content: 'Where is the Louvre?' }],
  responseFormat: { type: 'json_schema', json_schema: { name: 'place', schema } },
};

/** The answer of a server without json_schema: its 400 for response_format, else `reply`. */
const withoutJsonSchema =
  (reply: Script): Script =>
  (req: RecordedRequest) =>
    req.body.response_format?.type === 'json_schema'
      ? {
          status: 400,
          error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", param: 'response_format' },
        }
      : reply;

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}
const text = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');

describe('structured output through the output tool', () => {
  it('after the json_schema refusal, asks again with final_result forced and answers its arguments as the text', async () => {
    const m = model();
    const answer = { toolCalls: [{ name: 'final_result', arguments: { city: 'Paris' } }] };
    fake.enqueue(withoutJsonSchema(answer), withoutJsonSchema({ ...answer, text: 'Here it is:' }), withoutJsonSchema(answer));

    const parts = await collect(m.stream(structured));

    expect(fake.chatRequests).toHaveLength(2);
    const retried = fake.chatRequests[1]!.body;
    expect(retried).not.toHaveProperty('response_format');
    expect(retried.tools).toEqual([
      { type: 'function', function: { name: 'final_result', description: expect.stringContaining('place'), parameters: schema } },
    ]);
    expect(retried.tool_choice).toEqual({ type: 'function', function: { name: 'final_result' } });
    // Both bodies are reported, the one sent last is last.
    expect(parts.filter((p) => p.type === 'request').map((p) => p.body)).toEqual([fake.chatRequests[0]!.raw, fake.chatRequests[1]!.raw]);
    expect(text(parts)).toBe('{"city":"Paris"}');
    expect(parts.filter((p) => p.type === 'reasoning-delta')).toEqual([{ type: 'reasoning-delta', delta: 'Here it is:' }]);
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });

    // Remembered: the next request goes straight to the tool.
    const again = await collect(m.stream(structured));
    expect(fake.chatRequests).toHaveLength(3);
    expect(fake.chatRequests[2]!.body.tool_choice).toEqual({ type: 'function', function: { name: 'final_result' } });
    expect(text(again)).toBe('{"city":"Paris"}');
  });

  it('uses the tool from the first request when the provider is configured so; json_object requests are left alone', async () => {
    const m = model('tool');
    fake.enqueue({ toolCalls: [{ name: 'final_result', arguments: { city: 'Rome' } }] }, { text: '{}' });
    expect(text(await collect(m.stream(structured)))).toBe('{"city":"Rome"}');
    expect(fake.chatRequests[0]!.body).not.toHaveProperty('response_format');

    await collect(m.stream({ ...structured, responseFormat: { type: 'json_object' } }));
    expect(fake.chatRequests[1]!.body.response_format).toEqual({ type: 'json_object' });
    expect(fake.chatRequests[1]!.body).not.toHaveProperty('tools');
  });

  it('beside the agent’s tools: any tool is required, its own calls run first, and a plain-text answer still counts', async () => {
    const m = model('tool');
    const search = { name: 'search', description: 'Search', parameters: { type: 'object', properties: {} } };
    fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'search', arguments: {} },
          { name: 'final_result', arguments: { city: 'guess' } },
        ],
      },
      { text: '{"city":"Paris"}' },
    );

    const first = await collect(m.stream({ ...structured, tools: [search] }));
    expect(fake.chatRequests[0]!.body.tool_choice).toBe('required');
    expect(fake.chatRequests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['search', 'final_result']);
    expect(first.filter((p) => p.type === 'tool-call').map((p) => p.call.name)).toEqual(['search']);
    expect(text(first)).toBe('');
    expect(first.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });

    const second = await collect(m.stream({ ...structured, tools: [search] }));
    expect(text(second)).toBe('{"city":"Paris"}');
    expect(second.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('passes any other 400 through unchanged', async () => {
    fake.enqueue({ status: 400, error: { message: 'messages: too long' } });
    await expect(collect(model().stream(structured))).rejects.toThrow(/HTTP 400.*too long/);
    expect(fake.chatRequests).toHaveLength(1);
  });
});
