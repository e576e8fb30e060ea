import { describe, expect, it } from 'vitest';

import { QuerySyntaxError } from '../../src/errors.js';
import { parseRemQuery } from '../../src/rem/parser.js';
import { parseSearchWhere } from '../../src/rem/search-filter.js';

function filterOf(where: string) {
  const query = parseRemQuery(`SEARCH "x" WHERE ${where}`);
  if (query.mode !== 'SEARCH') throw new Error('not a SEARCH');
  return query.filter;
}

function syntaxError(query: string): QuerySyntaxError {
  try {
    parseRemQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(QuerySyntaxError);
    return error as QuerySyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('parseRemQuery: SEARCH ... WHERE', () => {
  it('parses every kind of condition, ANDed, among the other clauses in any order', () => {
    const query = parseRemQuery(
      `SEARCH "invoices" FROM resources WHERE tags CONTAINS 'finance' AND category = 'file_chunk' AND metadata.page = 2 ` +
        `AND metadata.parent = 'handbook' AND created_at > '2026-01-01' AND updated_at <= '2026-02-01T12:30:00+02:00' LIMIT 5 MIN_SIMILARITY 0.1`,
    );
    expect(query).toEqual({
      mode: 'SEARCH',
      text: 'invoices',
      table: 'resources',
      limit: 5,
      minSimilarity: 0.1,
      filter: {
        tagsAll: ['finance'],
        type: 'file_chunk',
        metadata: { page: 2, parent: 'handbook' },
        time: { created_gt: '2026-01-01T00:00:00.000Z', updated_lte: '2026-02-01T10:30:00.000Z' },
      },
    });
    expect(parseRemQuery(`search "x" limit 3 where TYPE = 'person' from entities`)).toEqual({
      mode: 'SEARCH',
      text: 'x',
      table: 'entities',
      limit: 3,
      filter: { type: 'person' },
    });
  });

  it('tags: CONTAINS one, ALL (...) merged with it, each ANY (...) its own group', () => {
    expect(filterOf(`tags CONTAINS 'a' AND tags CONTAINS ALL ('b', "a") AND tags CONTAINS ANY ('c', 'd') AND tags contains any ('e')`)).toEqual({
      tagsAll: ['a', 'b'],
      tagsAny: [['c', 'd'], ['e']],
    });
  });

  it('metadata values: strings, numbers, TRUE and FALSE; quoted keys', () => {
    expect(filterOf(`metadata.n = -1.5 AND metadata.ok = TRUE AND metadata.off = false AND metadata."two words" = 'v'`)).toEqual({
      metadata: { n: -1.5, ok: true, off: false, 'two words': 'v' },
    });
  });

  it('time bounds: each operator, dates and times, UTC unless an offset is given', () => {
    expect(
      filterOf(`created_at >= '2026-01-01' AND created_at < '2026-03-01 08:00' AND updated_at > '2026-01-02T03:04:05.5Z' AND updated_at < '2026-12-31'`),
    ).toEqual({
      time: {
        created_gte: '2026-01-01T00:00:00.000Z',
        created_lt: '2026-03-01T08:00:00.000Z',
        updated_gt: '2026-01-02T03:04:05.500Z',
        updated_lt: '2026-12-31T00:00:00.000Z',
      },
    });
  });

  it('rejects unknown fields, bad operators, bad dates and values of the wrong type with positions', () => {
    const unknown = syntaxError(`SEARCH "x" WHERE colour = 'red'`);
    expect(unknown.message).toBe('Unknown filter field "colour" at position 17; expected tags, type, category, metadata.<key>, created_at or updated_at');
    expect(unknown.position).toBe(17);
    expect(unknown.expected).toEqual(['tags', 'type', 'category', 'metadata.<key>', 'created_at', 'updated_at']);

    expect(syntaxError(`SEARCH "x" WHERE created_at > '2026-02-30'`).message).toBe(
      `Invalid date string '2026-02-30' at position 30; expected a date such as '2026-01-31' or '2026-01-31T12:00:00Z'`,
    );
    expect(syntaxError(`SEARCH "x" WHERE created_at > 'yesterday'`).message).toMatch(/^Invalid date string 'yesterday' at position 30/);
    expect(syntaxError(`SEARCH "x" WHERE updated_at > '2026-01-01T25:00Z'`).message).toMatch(/^Invalid date/);
    expect(syntaxError(`SEARCH "x" WHERE created_at > 2026`).message).toBe('Expected a quoted date after created_at at position 30, found number 2026');
    expect(syntaxError(`SEARCH "x" WHERE created_at = '2026-01-01'`).message).toBe(
      'Expected ">", ">=", "<" or "<=" after created_at at position 28, found "="',
    );
    expect(syntaxError(`SEARCH "x" WHERE type = 5`).message).toBe('Expected a quoted string after type at position 24, found number 5');
    expect(syntaxError(`SEARCH "x" WHERE type > 'a'`).message).toBe('Expected "=" after type at position 22, found ">"');
    expect(syntaxError(`SEARCH "x" WHERE tags = 'a'`).message).toBe('Expected CONTAINS after tags at position 22, found "="');
    expect(syntaxError(`SEARCH "x" WHERE tags CONTAINS 5`).message).toBe(
      'Expected a quoted tag, ANY (...) or ALL (...) after CONTAINS at position 31, found number 5',
    );
    expect(syntaxError(`SEARCH "x" WHERE tags CONTAINS ANY ('a' 'b')`).message).toBe(`Expected "," or ")" after a tag at position 40, found string 'b'`);
    expect(syntaxError(`SEARCH "x" WHERE metadata.k = [1]`).message).toBe(
      'Expected a quoted string, a number, TRUE or FALSE after metadata.k = at position 30, found "["',
    );
    expect(syntaxError(`SEARCH "x" WHERE metadata = 'a'`).message).toBe('Expected "." and a metadata key after metadata at position 26, found "="');
    expect(syntaxError(`SEARCH "x" WHERE`).message).toBe('Expected a filter field after WHERE at position 16, found end of query');
    expect(syntaxError(`SEARCH "x" WHERE type = 'a' AND`).message).toBe('Expected a filter field after WHERE at position 31, found end of query');
  });

  it('rejects the same condition twice and a second WHERE', () => {
    expect(syntaxError(`SEARCH "x" WHERE type = 'a' AND category = 'b'`).message).toBe(
      'Duplicate condition on type at position 32; already given at position 17',
    );
    expect(syntaxError(`SEARCH "x" WHERE metadata.k = 1 AND metadata.k = 2`).message).toMatch(/^Duplicate condition on metadata.k at position 36/);
    expect(syntaxError(`SEARCH "x" WHERE created_at > '2026-01-01' AND created_at > '2026-02-01'`).message).toMatch(/^Duplicate condition on created_at >/);
    expect(syntaxError(`SEARCH "x" WHERE type = 'a' WHERE type = 'b'`).message).toMatch(/^Duplicate WHERE clause at position 28/);
  });

  it('parseSearchWhere takes the conditions alone and requires their end', () => {
    expect(parseSearchWhere(`tags CONTAINS 'a' AND type = 'b'`)).toEqual({ tagsAll: ['a'], type: 'b' });
    expect(() => parseSearchWhere(`type = 'b' LIMIT 3`)).toThrow('Expected AND or the end of the conditions at position 11, found "LIMIT"');
  });
});
