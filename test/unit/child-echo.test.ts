import { describe, expect, it } from 'vitest';
import { ChildEcho } from '../../src/engine/child-echo.js';

/** What the loop asked before: is the text so far, trimmed, the start of a child's trimmed answer? */
const naive = (outputs: string[], text: string) => outputs.some((c) => c.trim().startsWith(text.trim()));

describe('ChildEcho', () => {
  it('answers as the trimmed prefix check did, delta after delta', () => {
    const outputs = ['  The total is 42.\nDone.  ', 'The tally is 7', 'Other'];
    const streams = [
      ['', ' ', 'The', ' total', ' is', ' 42', '.', '\n', 'Done', '.', '  '],
      ['The', ' ', ' total'],
      ['The t', 'a', 'lly is 7', ' and more'],
      ['  ', '\n', 'Oth', 'er', ' things'],
      ['No', ' match'],
      ['The total is 42.', ' ', '\n', 'Done.'],
    ];
    for (const deltas of streams) {
      const echo = new ChildEcho(outputs);
      let text = '';
      for (const delta of deltas) {
        text += delta;
        expect(echo.repeats(text), JSON.stringify(text)).toBe(naive(outputs, text));
      }
    }
  });

  it('never repeats without child answers', () => {
    expect(new ChildEcho([]).repeats('')).toBe(false);
    expect(new ChildEcho([]).repeats('anything')).toBe(false);
  });

  it('compares each character of a long repeat once, not once per delta', () => {
    const answer = 'word '.repeat(20_000);
    const echo = new ChildEcho([answer]);
    let text = '';
    let compared = 0;
    const startsWith = String.prototype.startsWith;
    String.prototype.startsWith = function (this: string, search: string, position?: number) {
      compared += search.length;
      return startsWith.call(this, search, position);
    };
    try {
      for (let i = 0; i < 20_000; i++) {
        text += 'word ';
        expect(echo.repeats(text)).toBe(true);
      }
    } finally {
      String.prototype.startsWith = startsWith;
    }
    expect(compared).toBeLessThanOrEqual(answer.length);
  });
});
