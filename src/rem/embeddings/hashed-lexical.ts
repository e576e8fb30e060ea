import type { EmbeddingProvider } from './provider.js';

/**
 * The offline default embedder: deterministic, no network, no model weights.
 *
 * It is LEXICAL, not semantic. Each text becomes a bag of features (lower-cased words, adjacent word
 * pairs, and character trigrams of each word), each feature is hashed into one of `dimension`
 * buckets with a hashed sign (the "hashing trick"), counts are damped with 1 + log(tf), and the
 * vector is L2-normalised. Cosine similarity then measures shared words and spellings: "invoice
 * overdue" finds "overdue invoices", but "car" does not find "automobile". Use the `openai` provider
 * (any OpenAI-compatible endpoint) for semantic search.
 */
export class HashedLexicalEmbedder implements EmbeddingProvider {
  constructor(
    readonly dimension = 384,
    readonly model = 'hashed-lexical-v1',
  ) {}

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): number[] {
    const counts = new Map<string, number>();
    const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
    const words = tokenize(text);
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      add(`w:${word}`);
      if (i > 0) add(`b:${words[i - 1]} ${word}`);
      const padded = `^${word}$`;
      for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`);
    }
    const vector = new Array<number>(this.dimension).fill(0);
    for (const [feature, tf] of counts) {
      const h = fnv1a(feature);
      const sign = h & 0x80000000 ? -1 : 1;
      vector[(h & 0x7fffffff) % this.dimension]! += sign * (1 + Math.log(tf)) * weightOf(feature);
    }
    let norm = 0;
    for (const x of vector) norm += x * x;
    norm = Math.sqrt(norm);
    return norm === 0 ? vector : vector.map((x) => x / norm);
  }
}

function weightOf(feature: string): number {
  return feature.startsWith('w:') ? 1 : feature.startsWith('b:') ? 0.5 : 0.35;
}

function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
