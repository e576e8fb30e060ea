import OpenAI from 'openai';
import { ModelError } from '../../errors.js';
import type { EmbeddingProvider } from './provider.js';

export interface OpenAIEmbedderOptions {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  dimension: number;
  /** Inputs per request. */
  batchSize?: number;
}

/** Embeddings from any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, LiteLLM...). */
export class OpenAIEmbedder implements EmbeddingProvider {
  readonly model: string;
  readonly dimension: number;
  private readonly client: OpenAI;
  private readonly batchSize: number;

  constructor(options: OpenAIEmbedderOptions) {
    this.model = options.model;
    this.dimension = options.dimension;
    this.batchSize = options.batchSize ?? 256;
    this.client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey ?? 'none', maxRetries: 2 });
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t.trim() === '' ? ' ' : t));
      let response: OpenAI.Embeddings.CreateEmbeddingResponse;
      try {
        response = await this.client.embeddings.create({ model: this.model, input: batch, dimensions: this.dimension });
      } catch (error) {
        const status = (error as { status?: number }).status;
        throw new ModelError(`Embedding request failed: ${(error as Error).message}`, status, status === 429 || (status ?? 500) >= 500);
      }
      const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      for (const vector of vectors) {
        if (vector.length !== this.dimension) {
          throw new ModelError(`Embedding model ${this.model} returned ${vector.length} dimensions, expected ${this.dimension}`);
        }
        out.push(vector);
      }
    }
    return out;
  }
}
