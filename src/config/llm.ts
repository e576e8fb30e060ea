import { z } from 'zod';
import { json, variable } from './env-values.js';

/** The built-in `openai` provider; embeddings default to it too. */
export const openaiVariables = z.object({
  OPENAI_API_KEY: z
    .string()
    .optional()
    .describe('key of the `openai` provider; without it (and without `LLM_DEFAULT_MODEL`) agents use the offline `demo` model'),
  OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1').describe('endpoint of the `openai` provider (any OpenAI-compatible server)'),
});

const extraProviders = z
  .record(
    z.string(),
    z.strictObject({
      baseUrl: z.url(),
      /** The key itself; null or absent for keyless endpoints such as Ollama or vLLM. */
      apiKey: z.string().min(1).nullable().optional(),
      /** Name of the environment variable holding the key (kept out of the JSON). */
      apiKeyEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .optional(),
      /**
       * How structured output is asked for: "json_schema" (the default: response_format, and the
       * output tool for a model that refuses it, from its first refusal on) or "tool" (always the
       * `final_result` tool, forced with tool_choice, for servers without json_schema).
       */
      structuredOutput: z.enum(['json_schema', 'tool']).optional(),
      /**
       * Which of the model's reasoning is sent back (see ReasoningReplay): "tool-loop" (DeepSeek's
       * thinking mode, the default for a provider named `deepseek` or at api.deepseek.com) or "never".
       */
      sendReasoning: z.enum(['never', 'tool-loop']).optional(),
    }),
  )
  .superRefine((providers, ctx) => {
    for (const [name, p] of Object.entries(providers)) {
      const problem = (message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
      if (name === 'openai' || name === 'demo') problem('built in; configure openai with OPENAI_API_KEY / OPENAI_BASE_URL');
      else if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) problem('provider names are lower-case letters, digits, - and _');
      else if (p.apiKey && p.apiKeyEnv) problem('set apiKey or apiKeyEnv, not both');
    }
  });

/**
 * Models: the `openai` provider, more OpenAI-compatible ones, and how calls to them are retried. The
 * whole environment is read, as a provider may name the variable holding its key (`apiKeyEnv`).
 */
export const llmSettings = z
  .looseObject({
    ...openaiVariables.shape,
    LLM_DEFAULT_MODEL: z.string().min(1).optional().meta({
      description: 'model for agents and messages that name none (`provider:model`, a bare model of the default provider, or `demo`)',
      shownDefault: '`openai:gpt-4.1-mini` with a key, else `demo`',
    }),
    LLM_PROVIDERS: json(extraProviders)
      .optional()
      .describe(
        'more OpenAI-compatible endpoints as JSON, e.g. `{"ollama":{"baseUrl":"http://127.0.0.1:11434/v1"},"openrouter":{"baseUrl":"https://openrouter.ai/api/v1","apiKeyEnv":"OPENROUTER_API_KEY"}}` (`apiKey` holds a key itself, `apiKeyEnv` names the variable holding it; `"structuredOutput": "tool"` gives structured output through a forced `final_result` tool call, for a server without `response_format: json_schema`; `"sendReasoning": "tool-loop"` sends the model’s reasoning back as `reasoning_content` on the current turn’s tool calls, as DeepSeek’s thinking mode requires, the default for a provider named `deepseek` or at api.deepseek.com, else `"never"`)',
      ),
    LLM_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000).describe('longest wait for a model’s first or next chunk'),
    LLM_MAX_RETRIES: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe('retries on 408/429/5xx and connection failures, only before anything streamed'),
    LLM_RETRY_BASE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(500)
      .describe('first retry delay; it doubles per attempt (exponential backoff with jitter), unless the provider sends `retry-after`'),
  })
  .transform((e) => ({
    defaultModel: e.LLM_DEFAULT_MODEL ?? (e.OPENAI_API_KEY ? 'openai:gpt-4.1-mini' : 'demo'),
    timeoutMs: e.LLM_TIMEOUT_MS,
    maxRetries: e.LLM_MAX_RETRIES,
    retryBaseMs: e.LLM_RETRY_BASE_MS,
    providers: Object.fromEntries([
      ['openai', provider(e.OPENAI_BASE_URL, e.OPENAI_API_KEY ?? null, 'OPENAI_API_KEY')],
      ...Object.entries(e.LLM_PROVIDERS ?? {}).map(
        ([name, p]) =>
          [
            name,
            {
              ...(p.apiKeyEnv
                ? provider(p.baseUrl, variable(e, p.apiKeyEnv) ?? null, p.apiKeyEnv, p.structuredOutput)
                : provider(p.baseUrl, p.apiKey ?? null, undefined, p.structuredOutput)),
              reasoning: p.sendReasoning ?? (isDeepSeek(name, p.baseUrl) ? 'tool-loop' : 'never'),
            },
          ] as const,
      ),
    ]),
  }));

/** One OpenAI-compatible endpoint. `apiKeyEnv` is set when a key is required (null `apiKey` = not configured). */
function provider(baseUrl: string, apiKey: string | null, apiKeyEnv?: string, structuredOutput?: 'json_schema' | 'tool'): ProviderSettings {
  return { baseUrl, apiKey, ...(apiKeyEnv ? { apiKeyEnv } : {}), ...(structuredOutput ? { structuredOutput } : {}) };
}

/** DeepSeek's own API: its thinking mode wants the current tool loop's reasoning back. */
function isDeepSeek(name: string, baseUrl: string): boolean {
  return name === 'deepseek' || new URL(baseUrl).hostname === 'api.deepseek.com';
}

interface ProviderSettings {
  baseUrl: string;
  apiKey: string | null;
  apiKeyEnv?: string;
  structuredOutput?: 'json_schema' | 'tool';
  /** Which reasoning is sent back (src/llm/chat-model.ts, ReasoningReplay); `never` unless set. */
  reasoning?: 'never' | 'tool-loop';
}
