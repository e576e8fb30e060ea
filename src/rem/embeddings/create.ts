import type { Config } from '../../config/config.js';
import { HashedLexicalEmbedder } from './hashed-lexical.js';
import { OpenAIEmbedder } from './openai.js';
import type { EmbeddingProvider } from './provider.js';

/** The embedding provider named by the settings. */
export function createEmbeddingProvider(settings: Config['rem']['embedding']): EmbeddingProvider {
  if (settings.provider === 'openai') {
    return new OpenAIEmbedder({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      model: settings.model,
      dimension: settings.dimension,
    });
  }
  return new HashedLexicalEmbedder(settings.dimension, settings.model);
}
