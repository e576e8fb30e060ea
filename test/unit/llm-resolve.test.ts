import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { ValidationError } from '../../src/errors.js';
import { createModelResolver } from '../../src/llm/resolve-model.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

const settings = (env: Record<string, string> = {}) => loadConfig(env).llm;

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('llm config', () => {
  it('defaults to the demo model without a key and to openai with one', () => {
    expect(settings()).toEqual({
      defaultModel: 'demo',
      timeoutMs: 60_000,
      maxRetries: 3,
      retryBaseMs: 500,
      providers: { openai: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' } },
    });
    expect(settings({ OPENAI_API_KEY: 'sk-test' }).defaultModel).toBe('openai:gpt-4.1-mini');
    expect(settings({ OPENAI_API_KEY: 'sk-test', LLM_DEFAULT_MODEL: 'openai:gpt-4o' }).defaultModel).toBe('openai:gpt-4o');
  });

  it('reads LLM_PROVIDERS, taking keys from apiKeyEnv', () => {
    const llm = settings({
      LLM_PROVIDERS: JSON.stringify({
        ollama: { baseUrl: 'http://127.0.0.1:11434/v1', apiKey: null },
        openrouter: { baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' },
      }),
      OPENROUTER_API_KEY: 'or-key',
    });
    expect(llm.providers.ollama).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', apiKey: null, reasoning: 'never' });
    expect(llm.providers.openrouter).toEqual({
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKey: 'or-key',
      apiKeyEnv: 'OPENROUTER_API_KEY',
      reasoning: 'never',
    });
  });

  it('sends reasoning back within the tool loop for DeepSeek (by name or address) unless told otherwise', () => {
    const llm = settings({
      LLM_PROVIDERS: JSON.stringify({
        deepseek: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' },
        ds: { baseUrl: 'https://api.deepseek.com/v1', apiKey: 'k' },
        'deepseek-local': { baseUrl: 'http://127.0.0.1:8000/v1', apiKey: null },
        quiet: { baseUrl: 'https://api.deepseek.com/v1', apiKey: 'k', sendReasoning: 'never' },
        vllm: { baseUrl: 'http://127.0.0.1:8000/v1', apiKey: null, sendReasoning: 'tool-loop' },
      }),
    });
    expect(Object.fromEntries(Object.entries(llm.providers).map(([name, p]) => [name, p.reasoning]))).toEqual({
      openai: undefined,
      deepseek: 'tool-loop',
      ds: 'tool-loop',
      'deepseek-local': 'never',
      quiet: 'never',
      vllm: 'tool-loop',
    });
    expect(thrown(() => settings({ LLM_PROVIDERS: JSON.stringify({ deepseek: { baseUrl: 'http://h/v1', sendReasoning: 'always' } }) })).message).toContain(
      'LLM_PROVIDERS.deepseek.sendReasoning',
    );
  });

  it('rejects bad LLM_PROVIDERS with clear messages', () => {
    expect(thrown(() => settings({ LLM_PROVIDERS: '{not json' }))).toBeInstanceOf(ConfigError);
    expect(thrown(() => settings({ LLM_PROVIDERS: '{not json' })).message).toContain('LLM_PROVIDERS: not valid JSON');
    expect(thrown(() => settings({ LLM_PROVIDERS: '{"x": {"baseUrl": "nope"}}' })).message).toContain('LLM_PROVIDERS.x.baseUrl');
    expect(thrown(() => settings({ LLM_PROVIDERS: '{"x": {"baseUrl": "http://h/v1", "key": "k"}}' })).message).toContain('LLM_PROVIDERS');
    expect(thrown(() => settings({ LLM_PROVIDERS: '{"openai": {"baseUrl": "http://h/v1"}}' })).message).toContain('OPENAI_API_KEY');
    expect(thrown(() => settings({ LLM_TIMEOUT_MS: 'soon' })).message).toContain('LLM_TIMEOUT_MS');
  });
});

describe('model resolver', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('gives the demo model by default when no key is configured', () => {
    const resolver = createModelResolver(settings());
    expect(resolver.defaultModelId).toBe('demo');
    expect(resolver.resolve().isDemo).toBe(true);
    expect(resolver.resolve(null).id).toBe('demo');
    expect(resolver.resolve('demo').id).toBe('demo');
  });

  it('gives openai by default when a key is configured, cached per id', () => {
    const resolver = createModelResolver(settings({ OPENAI_API_KEY: 'sk-test' }));
    const model = resolver.resolve();
    expect(model).toMatchObject({ provider: 'openai', model: 'gpt-4.1-mini', id: 'openai:gpt-4.1-mini', isDemo: false });
    expect(resolver.resolve('openai:gpt-4.1-mini')).toBe(model);
    expect(resolver.resolve('gpt-4.1-mini')).toBe(model);
    expect(resolver.resolve('demo').isDemo).toBe(true);
  });

  it('never falls back to demo when a real provider is named without its key', () => {
    const resolver = createModelResolver(settings());
    for (const name of ['openai:gpt-4o', 'gpt-4o']) {
      const error = thrown(() => resolver.resolve(name));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain('set OPENAI_API_KEY');
    }
  });

  it('rejects an unknown provider, listing the configured ones', () => {
    const resolver = createModelResolver(settings({ OPENAI_API_KEY: 'sk-test' }));
    const error = thrown(() => resolver.resolve('anthropic:claude'));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain('Unknown model provider "anthropic"');
    expect(error.message).toContain('openai, demo');
  });

  it('names the env var of a custom provider whose key is missing', () => {
    const resolver = createModelResolver(
      settings({ LLM_PROVIDERS: JSON.stringify({ openrouter: { baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' } }) }),
    );
    const error = thrown(() => resolver.resolve('openrouter:meta/llama'));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain('set OPENROUTER_API_KEY');
  });

  it('fails at creation when the default model is unusable', () => {
    const error = thrown(() => createModelResolver(settings({ LLM_DEFAULT_MODEL: 'openai:gpt-4o' })));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/^LLM_DEFAULT_MODEL "openai:gpt-4o": .*set OPENAI_API_KEY/);
  });

  it('routes bare models to the default provider and keeps colons in model names', async () => {
    const resolver = createModelResolver(
      settings({
        LLM_PROVIDERS: JSON.stringify({ local: { baseUrl: fake.url, apiKey: null } }),
        LLM_DEFAULT_MODEL: 'local:llama3.1:8b',
        LLM_RETRY_BASE_MS: '1',
      }),
    );
    expect(resolver.defaultModelId).toBe('local:llama3.1:8b');
    expect(resolver.resolve('qwen2.5')).toMatchObject({ provider: 'local', model: 'qwen2.5' });
    expect(() => resolver.resolve('llama3.1:8b')).toThrow(/write "local:llama3\.1:8b"/);

    fake.enqueue({ text: 'hi from local' });
    const parts = [];
    for await (const part of resolver.resolve().stream({ messages: [{ role: 'user', content: 'hi' }] })) parts.push(part);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(fake.chatRequests[0]!.body.model).toBe('llama3.1:8b');
    expect(fake.chatRequests[0]!.headers.authorization).toBeUndefined();
  });

  it('gives a provider with "structuredOutput": "tool" structured output through the final_result tool', async () => {
    const llm = settings({ LLM_PROVIDERS: JSON.stringify({ old: { baseUrl: fake.url, apiKey: null, structuredOutput: 'tool' } }) });
    expect(llm.providers.old).toEqual({ baseUrl: fake.url, apiKey: null, structuredOutput: 'tool', reasoning: 'never' });
    expect(thrown(() => settings({ LLM_PROVIDERS: JSON.stringify({ old: { baseUrl: fake.url, structuredOutput: 'xml' } }) })).message).toContain(
      'LLM_PROVIDERS.old.structuredOutput',
    );

    fake.reset();
    fake.enqueue({ toolCalls: [{ name: 'final_result', arguments: { ok: true } }] });
    const format = { type: 'json_schema' as const, json_schema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } };
    let text = '';
    for await (const part of createModelResolver(llm)
      .resolve('old:any')
      .stream({ messages: [{ role: 'user', content: 'ok?' }], responseFormat: format })) {
      if (part.type === 'text-delta') text += part.delta;
    }
    expect(text).toBe('{"ok":true}');
    expect(fake.chatRequests[0]!.body.tool_choice).toEqual({ type: 'function', function: { name: 'final_result' } });
  });

  it("resolves LiteLLM's provider/model like provider:model when the provider is configured; other slashed names stay bare", () => {
    const resolver = createModelResolver(
      settings({ OPENAI_API_KEY: 'sk-test', LLM_PROVIDERS: JSON.stringify({ gemini: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' } }) }),
    );
    expect(resolver.resolve('gemini/gemini-2.5-pro')).toMatchObject({ id: 'gemini:gemini-2.5-pro', provider: 'gemini', model: 'gemini-2.5-pro' });
    expect(resolver.resolve('meta-llama/llama-3')).toMatchObject({ provider: 'openai', model: 'meta-llama/llama-3' });
    expect(resolver.resolve('gemini:org/model')).toMatchObject({ provider: 'gemini', model: 'org/model' });
  });
});
