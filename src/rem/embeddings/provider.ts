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
 * more: pgvector stores 4-byte floats). Joined from an array: appending to a string builds a rope
 * of 2 pieces per component, which costs a bulk import several times more CPU and garbage.
 */
export function vectorLiteral(vector: number[]): string {
  const parts = new Array<string>(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i]!;
    parts[i] = x === 0 || !Number.isFinite(x) ? '0' : String(Math.round(x * 1e8) / 1e8);
  }
  return `[${parts.join(',')}]`;
}
