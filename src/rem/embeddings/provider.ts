/**
 * Turns text into vectors for REM SEARCH. A provider is identified by its model name and dimension;
 * both are stored with every vector so that a search never compares vectors of different models.
 */
export interface EmbeddingProvider {
  /** Stored in embeddings.model; changing it means re-embedding (see reembed). */
  readonly model: string;
  readonly dimension: number;
  /** One L2-normalised vector per input, in order. */
  embed(texts: string[]): Promise<number[][]>;
}

/** pgvector's text form, e.g. `[0.1,0.2]`. */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.map((x) => (Number.isFinite(x) ? +x.toPrecision(7) : 0)).join(',')}]`;
}
