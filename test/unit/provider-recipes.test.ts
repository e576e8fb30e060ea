import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createModelResolver } from '../../src/llm/resolve-model.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { readmeBlocks } from '../support/readme-blocks.js';

// The "Model providers" lines of docs/clients.md, loaded by the real configuration as the server
// loads its environment: each names a provider that resolves its `provider:model` default model,
// and that provider, pointed at the fake OpenAI server, sends that model and its key.

const page = 'docs/clients.md';
const markdown = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
const section = markdown.slice(markdown.indexOf('## Model providers'));
const [block] = readmeBlocks(section, page).filter((b) => b.lang === 'sh');
/** `NAME='value'` and `NAME=value` words before `npm start`, as the shell passes them to the server. */
const ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=('[^']*'|\S+)\s*/;

interface ProviderLine {
  line: string;
  env: Record<string, string>;
}

function parseLine(line: string): ProviderLine {
  const env: Record<string, string> = {};
  let rest = line;
  for (let match = ASSIGNMENT.exec(rest); match; match = ASSIGNMENT.exec(rest)) {
    env[match[1]!] = match[2]!.replace(/^'(.*)'$/, '$1');
    rest = rest.slice(match[0].length);
  }
  expect(rest, line).toBe('npm start');
  return { line, env };
}

const lines = (block?.code ?? '')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map(parseLine);

describe(`the LLM_PROVIDERS lines of ${page}`, () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('cover every provider the page promises', () => {
    const names = lines.flatMap(({ env }) => Object.keys(JSON.parse(env.LLM_PROVIDERS!) as object));
    expect(names).toEqual(['ollama', 'vllm', 'llamacpp', 'lmstudio', 'openrouter', 'gemini', 'azure', 'deepseek']);
  });

  for (const { line, env } of lines) {
    const name = Object.keys(JSON.parse(env.LLM_PROVIDERS!) as object)[0]!;
    it(`${name}: loads, resolves ${env.LLM_DEFAULT_MODEL} and calls it`, async () => {
      const declared = (JSON.parse(env.LLM_PROVIDERS!) as Record<string, { baseUrl: string; apiKeyEnv?: string; structuredOutput?: string }>)[name]!;
      // The page's keys are placeholders ("…"); a real one is what reaches the provider.
      const key = declared.apiKeyEnv ? { [declared.apiKeyEnv]: `key-for-${name}` } : {};
      const llm = loadConfig({ ...env, ...key }).llm;
      expect(llm.providers[name], line).toMatchObject({
        baseUrl: declared.baseUrl,
        apiKey: declared.apiKeyEnv ? `key-for-${name}` : null,
        ...(declared.structuredOutput ? { structuredOutput: declared.structuredOutput } : {}),
      });
      const resolver = createModelResolver(llm);
      const model = env.LLM_DEFAULT_MODEL!.slice(name.length + 1);
      expect(resolver.defaultModelId, line).toBe(env.LLM_DEFAULT_MODEL);
      expect(resolver.resolve(), line).toMatchObject({ provider: name, model, isDemo: false });

      // The same line with the fake server's address: the model and the key are what it sends.
      const pointed = { ...env, ...key, LLM_PROVIDERS: JSON.stringify({ [name]: { ...declared, baseUrl: fake.url } }) };
      fake.reset();
      fake.enqueue({ text: `hi from ${name}` });
      let text = '';
      for await (const part of createModelResolver(loadConfig(pointed).llm)
        .resolve()
        .stream({ messages: [{ role: 'user', content: 'hi' }] })) {
        if (part.type === 'text-delta') text += part.delta;
      }
      expect(text).toBe(`hi from ${name}`);
      expect(fake.chatRequests[0]!.body.model).toBe(model);
      expect(fake.chatRequests[0]!.headers.authorization).toBe(declared.apiKeyEnv ? `Bearer key-for-${name}` : undefined);
    });
  }
});
