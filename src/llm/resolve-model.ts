import type { Config } from '../config/config.js';
import { ValidationError } from '../errors.js';
import type { ChatModel } from './chat-model.js';
import { createDemoModel, type DemoModelOptions } from './demo.js';
import { createOpenAIModel } from './openai.js';
import { tracedModel } from './traced-model.js';

export type ModelSettings = Config['llm'];

export interface ModelResolver {
  /**
   * The model for a model string: `demo`, `provider:model`, a bare `model` (default provider), or
   * nothing (the default model). Throws ValidationError for an unknown provider or a missing API
   * key; a real provider that cannot be used is an error, never a silent switch to the demo model.
   */
  resolve(modelString?: string | null): ChatModel;
  /** Id of the model used when none is named, e.g. "openai:gpt-4.1-mini" or "demo". */
  readonly defaultModelId: string;
}

/**
 * Builds the resolver and checks the default model at once, so a bad LLM_DEFAULT_MODEL or a
 * missing key for it fails at start-up (ValidationError) rather than on the first chat.
 */
export function createModelResolver(settings: ModelSettings, options: { demo?: DemoModelOptions } = {}): ModelResolver {
  const cache = new Map<string, ChatModel>();
  const providerNames = Object.keys(settings.providers);
  const defaultProvider = defaultProviderOf(settings);

  const resolve = (modelString?: string | null): ChatModel => {
    const wanted = modelString?.trim() || settings.defaultModel;
    const { provider, model } = parseModelString(wanted, providerNames, defaultProvider);
    const id = provider === 'demo' ? 'demo' : `${provider}:${model}`;
    const cached = cache.get(id);
    if (cached) return cached;

    let created: ChatModel;
    if (provider === 'demo') {
      created = createDemoModel(options.demo);
    } else {
      const config = settings.providers[provider]!;
      if (config.apiKey === null && config.apiKeyEnv) {
        throw new ValidationError(
          `Model "${id}" needs an API key for provider ${provider}: set ${config.apiKeyEnv}` +
            (provider === 'openai' ? ' (without a key only the offline "demo" model is available)' : ''),
        );
      }
      created = createOpenAIModel({
        provider,
        model,
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        apiKeyEnv: config.apiKeyEnv,
        timeoutMs: settings.timeoutMs,
        maxRetries: settings.maxRetries,
        retryBaseMs: settings.retryBaseMs,
        structuredOutput: config.structuredOutput,
        reasoning: config.reasoning,
      });
    }
    // Every model call is a span while tracing is on.
    const traced = tracedModel(created);
    cache.set(id, traced);
    return traced;
  };

  let defaultModel: ChatModel;
  try {
    defaultModel = resolve();
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(`LLM_DEFAULT_MODEL "${settings.defaultModel}": ${error.message}`);
    throw error;
  }
  return { resolve, defaultModelId: defaultModel.id };
}

/** Bare model names go to the default model's provider, or to openai when the default is the demo. */
function defaultProviderOf(settings: ModelSettings): string {
  const colon = settings.defaultModel.indexOf(':');
  const prefix = colon < 0 ? '' : settings.defaultModel.slice(0, colon);
  return Object.hasOwn(settings.providers, prefix) ? prefix : 'openai';
}

function parseModelString(value: string, providers: string[], defaultProvider: string): { provider: string; model: string } {
  if (value === 'demo' || value.startsWith('demo:')) return { provider: 'demo', model: 'demo' };
  const colon = value.indexOf(':');
  if (colon < 0) return litellmForm(value, providers) ?? { provider: defaultProvider, model: value };
  const provider = value.slice(0, colon);
  const model = value.slice(colon + 1).trim();
  if (!providers.includes(provider)) {
    // Model names may contain ':' (Ollama's "llama3.1:8b"), so an unknown prefix is an error, not a guess.
    throw new ValidationError(
      `Unknown model provider "${provider}" in "${value}". Configured providers: ${[...providers, 'demo'].join(', ')} ` +
        `(add others with LLM_PROVIDERS; for a model name containing ":" write "${defaultProvider}:${value}").`,
      [{ path: ['model'], message: `unknown provider "${provider}"` }],
    );
  }
  if (!model) throw new ValidationError(`Model string "${value}" names no model after "${provider}:"`, [{ path: ['model'], message: 'model name missing' }]);
  return { provider, model };
}

/**
 * LiteLLM's `provider/model` (`gemini/gemini-2.5-pro`, as the routing seed writes models) when the
 * part before the first "/" is a configured provider; other slashed names stay bare model names
 * (`openrouter:openai/gpt-4o` names a slashed model of another provider).
 */
function litellmForm(value: string, providers: string[]): { provider: string; model: string } | null {
  const slash = value.indexOf('/');
  const provider = value.slice(0, slash);
  const model = value.slice(slash + 1).trim();
  return slash > 0 && model && providers.includes(provider) ? { provider, model } : null;
}
