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

/**
 * pgvector's text form, e.g. `[0.1,0.2]`, to 8 decimal places (a unit vector's components need no
 * more: pgvector stores 4-byte floats). Written by hand: a bulk import formats millions of numbers.
 */
export function vectorLiteral(vector: number[]): string {
  let text = '[';
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i]!;
    text += `${i ? ',' : ''}${Number.isFinite(x) ? Math.round(x * 1e8) / 1e8 : 0}`;
  }
  return `${text}]`;
}
