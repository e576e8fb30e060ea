import { describe, expect, it } from 'vitest';
import { chunkSections } from '../../src/rem/ingest/chunk-text.js';

describe('chunkSections', () => {
  it('packs whole paragraphs while they fit and never crosses a section', () => {
    const chunks = chunkSections(
      [
        { headings: ['A'], text: 'one one\n\ntwo two\n\nthree three' },
        { headings: ['A', 'B'], text: 'four' },
      ],
      { maxChars: 20, overlapChars: 0 },
    );
    expect(chunks).toEqual([
      { headings: ['A'], text: 'one one\n\ntwo two' },
      { headings: ['A'], text: 'three three' },
      { headings: ['A', 'B'], text: 'four' },
    ]);
  });

  it('cuts a long paragraph at sentence ends, then spaces, and repeats whole words of the previous chunk', () => {
    const text = 'Alpha beta gamma. Delta epsilon zeta eta. Theta iota kappa lambda mu nu xi omicron.';
    const chunks = chunkSections([{ headings: [], text }], { maxChars: 40, overlapChars: 10 });
    expect(chunks.every((c) => c.text.length <= 40)).toBe(true);
    expect(chunks.map((c) => c.text)).toEqual([
      'Alpha beta gamma.',
      'gamma. Delta epsilon zeta eta.',
      'zeta eta. Theta iota kappa lambda mu nu',
      'mu nu xi omicron.',
    ]);
  });

  it('drops empty paragraphs and sections', () => {
    expect(chunkSections([{ headings: ['x'], text: '\n\n  \n\n' }], { maxChars: 100, overlapChars: 10 })).toEqual([]);
  });
});
