import { describe, expect, it } from 'vitest';
import { storable } from '../../src/events/storable.js';

describe('storable', () => {
  it('replaces NUL and lone surrogates anywhere in a value with U+FFFD', () => {
    const value = { a: 'x\u0000y', list: ['ok', 'bad\ud800'], nested: { 'key\u0000': 'fine' }, n: 1, none: null };
    expect(storable(value)).toEqual({ a: 'x\uFFFDy', list: ['ok', 'bad\uFFFD'], nested: { 'key\uFFFD': 'fine' }, n: 1, none: null });
    expect(JSON.stringify(storable(value))).not.toMatch(/\\u0000|\\ud800/);
  });

  it('returns clean values as they were, without copying', () => {
    const value = { a: 'plain', list: [1, 'two', { three: 'emoji 🎉' }] };
    expect(storable(value)).toBe(value);
  });

  it('leaves the original untouched', () => {
    const value = { a: 'x\u0000' };
    storable(value);
    expect(value.a).toBe('x\u0000');
  });
});
