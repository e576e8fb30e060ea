import { describe, expect, it } from 'vitest';
import { statementNames } from '../../src/db/statement-names.js';

describe('statementNames', () => {
  it('names a statement from its second use on, one name per text, up to the cap', () => {
    const name = statementNames(2);
    expect(name({ sql: 'SELECT 1' })).toBeUndefined();
    const first = name({ sql: 'SELECT 1' });
    expect(first).toMatch(/^remgraph_/);
    expect(name({ sql: 'SELECT 1' })).toBe(first);
    name({ sql: 'SELECT 2' });
    expect(name({ sql: 'SELECT 2' })).not.toBe(first);
    name({ sql: 'SELECT 3' });
    expect(name({ sql: 'SELECT 3' })).toBeUndefined();
    expect(name({ sql: 'SELECT 1' })).toBe(first);
  });
});
