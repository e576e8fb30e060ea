import { describe, expect, it } from 'vitest';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { vectorLiteral } from '../../src/rem/embeddings/provider.js';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('hashed-lexical embedder', () => {
  const embedder = new HashedLexicalEmbedder();

  it('is deterministic, L2-normalised and of the configured dimension', async () => {
    const [a, b] = await embedder.embed(['Overdue invoices', 'Overdue invoices']);
    expect(a).toHaveLength(384);
    expect(a).toEqual(b);
    expect(Math.sqrt(cosine(a!, a!))).toBeCloseTo(1, 6);
    expect((await new HashedLexicalEmbedder(64, 'x').embed(['a b c']))[0]).toHaveLength(64);
    expect(embedder.model).toBe('hashed-lexical-v1');
  });

  it('scores shared words and spellings, case and accents aside', () => {
    const q = embedder.embedOne('overdue invoice');
    const close = embedder.embedOne('Invoices that are OVERDUE');
    const far = embedder.embedOne('zebras graze on the savanna');
    expect(cosine(q, close)).toBeGreaterThan(0.4);
    expect(cosine(q, far)).toBeLessThan(0.15);
    expect(cosine(embedder.embedOne('café'), embedder.embedOne('cafe'))).toBeCloseTo(1, 6);
  });

  it('is lexical, not semantic: synonyms do not match', () => {
    expect(cosine(embedder.embedOne('car'), embedder.embedOne('automobile'))).toBeLessThan(0.2);
  });

  it('gives an all-zero vector for text without words', () => {
    expect(embedder.embedOne('  ...  ').every((x) => x === 0)).toBe(true);
  });

  it('writes pgvector literals', () => {
    expect(vectorLiteral([0.5, -0.25, 1 / 3])).toBe('[0.5,-0.25,0.33333333]');
  });
});
