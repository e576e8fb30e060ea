// The generated memory of bench/rem.ts and bench/fuzzy-tail.ts: the same entities in every run.
import type { ImportSource } from '../src/rem/import/jsonl.js';
import type { MemoryItemInput } from '../src/rem/memory/inputs.js';

// Deterministic pseudo-random numbers (mulberry32) so that runs are comparable.
export function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pronounceable made-up words (consonant-vowel syllables): about as varied in trigrams as real words.
export const WORDS = (() => {
  const random = rng(42);
  const letter = (from: string) => from[Math.floor(random() * from.length)]!;
  const words = new Set<string>();
  while (words.size < 2000) {
    const n = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length: n }, () => letter('bcdfghjklmnprstvwxz') + letter('aeiou')).join('') + letter('bcdfghjklmnprstvwxz'));
  }
  return [...words];
})();

/** Entity i, the same in every run: its key, name, content and edges (to entities below `size`). */
export function entity(i: number, size: number): MemoryItemInput {
  const random = rng(i + 1);
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const name = `${pick()} ${pick()}`;
  return {
    entity: {
      key: `${name} ${i}`,
      name,
      content: `${name} ${Array.from({ length: 12 }, pick).join(' ')}`,
      tags: ['bench'],
      graphEdges: ['knows', 'cites', 'part_of'].map((relType) => ({
        dst: keyOf(Math.floor(random() * size)),
        relType,
        weight: +(0.5 + random() / 2).toFixed(2),
      })),
    },
  };
}
export const keyOf = (i: number) => {
  const random = rng(i + 1);
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  return `${pick()}-${pick()}-${i}`;
};

/** A FUZZY query's text: a word with a letter dropped (a typo) and another word. */
export function fuzzyText(random: () => number): string {
  const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const w = word();
  return `${w.length > 4 ? w.slice(0, 2) + w.slice(3) : `${w}x`} ${word()}`;
}

/** Entities `from` up to `size` as the JSONL lines `remgraph import` reads, generated instead of read from a file. */
export function generatedSource(from: number, size: number): ImportSource {
  const total = size - from;
  return {
    name: 'generated',
    total,
    async *lines(start: number) {
      for (let line = Math.max(start, 1); line <= total; line++) yield { line, text: JSON.stringify(entity(from + line - 1, size)) };
    },
    where: (line) => `${line}`,
  };
}
