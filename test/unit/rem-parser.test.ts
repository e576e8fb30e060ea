import { describe, expect, it } from 'vitest';

import { AppError, QuerySyntaxError } from '../../src/errors.js';
import { normalizeKey } from '../../src/rem/keys.js';
import { DEFAULT_REM_PARSE_OPTIONS, parseRemQuery, type RemParseOptions } from '../../src/rem/parser.js';

function syntaxError(query: string, defaults?: Partial<RemParseOptions>): QuerySyntaxError {
  try {
    parseRemQuery(query, defaults);
  } catch (error) {
    expect(error).toBeInstanceOf(QuerySyntaxError);
    expect(error).toBeInstanceOf(AppError);
    const syntax = error as QuerySyntaxError;
    expect(syntax.code).toBe('QUERY_SYNTAX');
    expect(syntax.name).toBe('QuerySyntaxError');
    return syntax;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('normalizeKey', () => {
  it.each([
    ['Sarah Chen', 'sarah-chen'],
    ['  Q3 Report!! ', 'q3-report'],
    ['sarah-chen', 'sarah-chen'],
    ['Café Zoë', 'cafe-zoe'],
    ['Ångström  Über', 'angstrom-uber'],
    ['ＱＵＡＲＴＥＲＬＹ　Ｒｅｐｏｒｔ３', 'quarterly-report3'],
    ['İstanbul', 'istanbul'],
    ['authored_by.v2', 'authored-by-v2'],
    ['--a---b--', 'a-b'],
    ['multi\nline\ttext', 'multi-line-text'],
  ])('%j -> %j', (input, key) => {
    expect(normalizeKey(input)).toBe(key);
  });

  it('returns an empty string when nothing usable is left', () => {
    expect(normalizeKey('')).toBe('');
    expect(normalizeKey('   ')).toBe('');
    expect(normalizeKey('!!! ---')).toBe('');
    expect(normalizeKey('日本語')).toBe('');
  });

  it('is idempotent', () => {
    for (const input of ['Sarah Chen', '  Q3 Report!! ', 'Café Zoë']) {
      expect(normalizeKey(normalizeKey(input))).toBe(normalizeKey(input));
    }
  });
});

describe('parseRemQuery: LOOKUP', () => {
  it('parses a single key', () => {
    expect(parseRemQuery('LOOKUP "sarah-chen"')).toEqual({ mode: 'LOOKUP', keys: ['sarah-chen'] });
  });

  it('normalises keys to kebab-case', () => {
    expect(parseRemQuery('LOOKUP "Sarah Chen"')).toEqual({ mode: 'LOOKUP', keys: ['sarah-chen'] });
    expect(parseRemQuery('LOOKUP "  Q3 Report!! "')).toEqual({ mode: 'LOOKUP', keys: ['q3-report'] });
  });

  it('accepts keywords in any case', () => {
    for (const keyword of ['lookup', 'Lookup', 'LoOkUp']) {
      expect(parseRemQuery(`${keyword} "a"`)).toEqual({ mode: 'LOOKUP', keys: ['a'] });
    }
  });

  it('accepts several comma-separated keys, de-duplicated in order', () => {
    expect(parseRemQuery('LOOKUP "b", "a" ,"c"')).toEqual({ mode: 'LOOKUP', keys: ['b', 'a', 'c'] });
    expect(parseRemQuery('LOOKUP "Sarah Chen", "sarah-chen", "Bob"')).toEqual({
      mode: 'LOOKUP',
      keys: ['sarah-chen', 'bob'],
    });
  });

  it('accepts single-quoted strings and every escape', () => {
    expect(parseRemQuery("LOOKUP 'O\\'Brien'")).toEqual({ mode: 'LOOKUP', keys: ['o-brien'] });
    expect(parseRemQuery('LOOKUP "say \\"hi\\" \\\\ now\\n\\tok"')).toEqual({
      mode: 'LOOKUP',
      keys: ['say-hi-now-ok'],
    });
    // The other quote character needs no escape.
    expect(parseRemQuery(`LOOKUP "it's", 'a "b"'`)).toEqual({ mode: 'LOOKUP', keys: ['it-s', 'a-b'] });
  });

  it('tolerates surrounding whitespace, newlines and trailing semicolons', () => {
    expect(parseRemQuery('\n  LOOKUP\n\t"a",\n  "b"  ;; \n')).toEqual({ mode: 'LOOKUP', keys: ['a', 'b'] });
  });
});

describe('parseRemQuery: FUZZY', () => {
  it('uses the default threshold and limit', () => {
    expect(parseRemQuery('FUZZY "sara"')).toEqual({ mode: 'FUZZY', text: 'sara', threshold: 0.3, limit: 10 });
    expect(DEFAULT_REM_PARSE_OPTIONS).toEqual({ fuzzyThreshold: 0.3, limit: 10, maxLimit: 100, maxDepth: 5, maxKeys: 100 });
  });

  it('parses THRESHOLD and LIMIT in either order', () => {
    const expected = { mode: 'FUZZY', text: 'sara', threshold: 0.7, limit: 5 };
    expect(parseRemQuery('FUZZY "sara" THRESHOLD 0.7 LIMIT 5')).toEqual(expected);
    expect(parseRemQuery('fuzzy "sara" limit 5 threshold 0.7')).toEqual(expected);
    expect(parseRemQuery('FUZZY "sara" THRESHOLD .7 LIMIT 5;')).toEqual(expected);
  });

  it('accepts the threshold bounds and integer thresholds', () => {
    expect(parseRemQuery('FUZZY "x" THRESHOLD 0')).toMatchObject({ threshold: 0 });
    expect(parseRemQuery('FUZZY "x" THRESHOLD 1')).toMatchObject({ threshold: 1 });
    expect(parseRemQuery('FUZZY "x" THRESHOLD 1.0')).toMatchObject({ threshold: 1 });
  });

  it('accepts the maximum limit', () => {
    expect(parseRemQuery('FUZZY "x" LIMIT 100')).toMatchObject({ limit: 100 });
  });

  it('takes defaults from the options object', () => {
    expect(parseRemQuery('FUZZY "x"', { fuzzyThreshold: 0.6, limit: 20 })).toEqual({
      mode: 'FUZZY',
      text: 'x',
      threshold: 0.6,
      limit: 20,
    });
    expect(parseRemQuery('FUZZY "x" LIMIT 250', { maxLimit: 500 })).toMatchObject({ limit: 250 });
  });

  it('keeps the text as written apart from trimming', () => {
    expect(parseRemQuery('FUZZY "  Sarah  Chen\\t"')).toMatchObject({ text: 'Sarah  Chen' });
    expect(parseRemQuery('FUZZY \'say \\"hi\\"\'')).toMatchObject({ text: 'say "hi"' });
  });
});

describe('parseRemQuery: SEARCH', () => {
  it('searches every table when FROM is absent', () => {
    const query = parseRemQuery('SEARCH "machine learning"');
    expect(query).toEqual({ mode: 'SEARCH', text: 'machine learning', limit: 10 });
    expect('table' in query).toBe(false);
    expect('minSimilarity' in query).toBe(false);
  });

  it.each([
    ['resources', 'resources'],
    ['resource', 'resources'],
    ['entities', 'entities'],
    ['entity', 'entities'],
    ['ontologies', 'entities'],
    ['ontology', 'entities'],
    ['moments', 'moments'],
    ['moment', 'moments'],
    ['ONTOLOGIES', 'entities'],
    ['"Moments"', 'moments'],
    ["'resource'", 'resources'],
  ])('FROM %s -> %s', (table, expected) => {
    expect(parseRemQuery(`SEARCH "x" FROM ${table}`)).toEqual({ mode: 'SEARCH', text: 'x', table: expected, limit: 10 });
  });

  it('parses the design-document example', () => {
    expect(parseRemQuery('SEARCH "API documentation" FROM ontologies LIMIT 10')).toEqual({
      mode: 'SEARCH',
      text: 'API documentation',
      table: 'entities',
      limit: 10,
    });
  });

  it('parses LIMIT and MIN_SIMILARITY in any order', () => {
    const expected = { mode: 'SEARCH', text: 'x', table: 'moments', limit: 3, minSimilarity: 0.45 };
    expect(parseRemQuery('SEARCH "x" FROM moments LIMIT 3 MIN_SIMILARITY 0.45')).toEqual(expected);
    expect(parseRemQuery('search "x" min_similarity 0.45 limit 3 from moment')).toEqual(expected);
    expect(parseRemQuery('SEARCH "x" MIN_SIMILARITY 0.45 FROM moments LIMIT 3')).toEqual(expected);
  });
});

describe('parseRemQuery: TRAVERSE', () => {
  it('parses FROM first', () => {
    expect(parseRemQuery('TRAVERSE FROM "quarterly-report" TYPE "authored_by" DEPTH 1')).toEqual({
      mode: 'TRAVERSE',
      from: 'quarterly-report',
      relType: 'authored_by',
      depth: 1,
      limit: 10,
    });
  });

  it('parses the seed order TYPE ... FROM ... DEPTH', () => {
    expect(parseRemQuery('TRAVERSE TYPE "rel" FROM "Sarah Chen" DEPTH 2')).toEqual({
      mode: 'TRAVERSE',
      from: 'sarah-chen',
      relType: 'rel',
      depth: 2,
      limit: 10,
    });
  });

  it('defaults depth to 1 and omits relType when not given', () => {
    const query = parseRemQuery('traverse from "a"');
    expect(query).toEqual({ mode: 'TRAVERSE', from: 'a', depth: 1, limit: 10 });
    expect('relType' in query).toBe(false);
  });

  it('parses LIMIT and every clause order', () => {
    const expected = { mode: 'TRAVERSE', from: 'a', relType: 'knows', depth: 3, limit: 7 };
    expect(parseRemQuery('TRAVERSE LIMIT 7 DEPTH 3 TYPE "knows" FROM "a"')).toEqual(expected);
    expect(parseRemQuery('TRAVERSE DEPTH 3 FROM "a" LIMIT 7 TYPE "knows";')).toEqual(expected);
  });

  it('keeps the relation type as written (trimmed), not kebab-cased', () => {
    expect(parseRemQuery('TRAVERSE FROM "a" TYPE " Authored_By "')).toMatchObject({ relType: 'Authored_By' });
  });

  it('accepts the maximum depth, and a larger maximum from the options', () => {
    expect(parseRemQuery('TRAVERSE FROM "a" DEPTH 5')).toMatchObject({ depth: 5 });
    expect(parseRemQuery('TRAVERSE FROM "a" DEPTH 8', { maxDepth: 10 })).toMatchObject({ depth: 8 });
  });
});

describe('parseRemQuery: SQL', () => {
  it('passes the body through, trimmed and without trailing semicolons', () => {
    expect(parseRemQuery('SQL select * from entities;')).toEqual({ mode: 'SQL', sql: 'select * from entities' });
    expect(parseRemQuery('sql   SELECT 1 ; ;  \n')).toEqual({ mode: 'SQL', sql: 'SELECT 1' });
  });

  it('keeps the body verbatim, including case, newlines, quotes and inner semicolons', () => {
    const body = "SELECT name, 'a;b' AS \"X\"\n  FROM entities\n  WHERE name LIKE '%chen%'";
    expect(parseRemQuery(`SQL\n${body};`)).toEqual({ mode: 'SQL', sql: body });
    expect(parseRemQuery("SQL select 'unterminated")).toEqual({ mode: 'SQL', sql: "select 'unterminated" });
    expect(parseRemQuery('SQL DELETE FROM entities')).toEqual({ mode: 'SQL', sql: 'DELETE FROM entities' });
  });

  it('treats a query starting with SELECT or WITH as SQL', () => {
    expect(parseRemQuery('  SELECT * FROM moments LIMIT 5;')).toEqual({ mode: 'SQL', sql: 'SELECT * FROM moments LIMIT 5' });
    expect(parseRemQuery('select 1')).toEqual({ mode: 'SQL', sql: 'select 1' });
    expect(parseRemQuery('with x as (select 1) select * from x')).toEqual({
      mode: 'SQL',
      sql: 'with x as (select 1) select * from x',
    });
  });
});

describe('parseRemQuery: errors', () => {
  const modes = ['LOOKUP', 'FUZZY', 'SEARCH', 'TRAVERSE', 'SQL'];

  it.each([
    // Empty query and unknown mode
    ['', 0, 'Expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL at position 0, found end of query', modes],
    ['   \n ', 5, 'Expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL at position 5, found end of query', modes],
    [';', 0, 'Expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL at position 0, found end of query', modes],
    ['FIND "x"', 0, 'Unknown query mode "FIND" at position 0; expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL', modes],
    ['  LOOKUPS "x"', 2, 'Unknown query mode "LOOKUPS" at position 2; expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL', modes],
    ['"sarah-chen"', 0, 'Expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL at position 0, found string "sarah-chen"', modes],
    ['(SELECT 1)', 0, 'Expected LOOKUP, FUZZY, SEARCH, TRAVERSE or SQL at position 0, found "("', modes],

    // Missing or malformed arguments
    ['LOOKUP', 6, 'Expected a quoted string after LOOKUP at position 6, found end of query', ['a quoted string']],
    ['LOOKUP ', 7, 'Expected a quoted string after LOOKUP at position 7, found end of query', ['a quoted string']],
    ['LOOKUP sarah', 7, 'Expected a quoted string after LOOKUP at position 7, found "sarah"', ['a quoted string']],
    ['LOOKUP 42', 7, 'Expected a quoted string after LOOKUP at position 7, found number 42', ['a quoted string']],
    ['LOOKUP "a",', 11, 'Expected a quoted string after "," at position 11, found end of query', ['a quoted string']],
    ['LOOKUP "a", , "b"', 12, 'Expected a quoted string after "," at position 12, found ","', ['a quoted string']],
    ['LOOKUP "!!!"', 7, 'Expected a key with letters or digits at position 7, found string "!!!"', ['a key with letters or digits']],
    ['LOOKUP "a", "  "', 12, 'Expected a key with letters or digits at position 12, found string "  "', ['a key with letters or digits']],
    ['FUZZY', 5, 'Expected a quoted string after FUZZY at position 5, found end of query', ['a quoted string']],
    ['FUZZY ""', 6, 'Expected non-empty text after FUZZY at position 6, found string ""', ['non-empty text']],
    ['SEARCH " "', 7, 'Expected non-empty text after SEARCH at position 7, found string " "', ['non-empty text']],
    ['TRAVERSE FROM', 13, 'Expected a quoted string after FROM at position 13, found end of query', ['a quoted string']],
    ['TRAVERSE FROM "?"', 14, 'Expected a key with letters or digits at position 14, found string "?"', ['a key with letters or digits']],
    ['TRAVERSE FROM "a" TYPE rel', 23, 'Expected a quoted string after TYPE at position 23, found "rel"', ['a quoted string']],
    ['TRAVERSE FROM "a" TYPE ""', 23, 'Expected a non-empty relation type after TYPE at position 23, found string ""', ['a non-empty relation type']],
    ['SQL', 3, 'Expected an SQL statement after SQL at position 3, found end of query', ['an SQL statement']],
    ['SQL   ', 6, 'Expected an SQL statement after SQL at position 6, found end of query', ['an SQL statement']],
    ['SQL ; ;', 4, 'Expected an SQL statement after SQL at position 4, found end of query', ['an SQL statement']],

    // Strings
    ['LOOKUP "abc', 7, 'Unterminated string starting at position 7; expected a closing "', ['closing "']],
    ["FUZZY 'abc\\'", 6, "Unterminated string starting at position 6; expected a closing '", ["closing '"]],
    ['LOOKUP "abc\\', 7, 'Unterminated string starting at position 7; expected a closing "', ['closing "']],
    ['LOOKUP "a\\qb"', 9, 'Unknown escape "\\q" at position 9; expected \\", \\\', \\\\, \\n or \\t', ['\\"', "\\'", '\\\\', '\\n', '\\t']],

    // Unknown, duplicated and trailing clauses
    ['FUZZY "sara" LIMT 5', 13, 'Unknown clause "LIMT" at position 13; expected THRESHOLD or LIMIT', ['THRESHOLD', 'LIMIT']],
    ['FUZZY "x" LIMIT 5 DEPTH 2', 18, 'Unknown clause "DEPTH" at position 18; expected THRESHOLD', ['THRESHOLD']],
    [
      'SEARCH "x" IN entities',
      11,
      'Unknown clause "IN" at position 11; expected FROM, WHERE, LIMIT or MIN_SIMILARITY',
      ['FROM', 'WHERE', 'LIMIT', 'MIN_SIMILARITY'],
    ],
    [
      'TRAVERSE "a"',
      9,
      'Unexpected string "a" at position 9; expected FROM, TYPE, DEPTH, LIMIT or end of query',
      ['FROM', 'TYPE', 'DEPTH', 'LIMIT', 'end of query'],
    ],
    ['FUZZY "x" LIMIT 5 LIMIT 6', 18, 'Duplicate LIMIT clause at position 18; already given at position 10', ['THRESHOLD', 'end of query']],
    ['TRAVERSE FROM "a" from "b"', 18, 'Duplicate FROM clause at position 18; already given at position 9', ['TYPE', 'DEPTH', 'LIMIT', 'end of query']],
    [
      'SEARCH "x" FROM entities FROM moments',
      25,
      'Duplicate FROM clause at position 25; already given at position 11',
      ['WHERE', 'LIMIT', 'MIN_SIMILARITY', 'end of query'],
    ],
    ['LOOKUP "a" "b"', 11, 'Unexpected string "b" at position 11; expected "," or end of query', ['","', 'end of query']],
    ['LOOKUP "a" extra', 11, 'Unexpected "extra" at position 11; expected "," or end of query', ['","', 'end of query']],
    ['LOOKUP "a"; x', 10, 'Unexpected ";" at position 10; expected "," or end of query', ['","', 'end of query']],
    ['FUZZY "x" 5', 10, 'Unexpected number 5 at position 10; expected THRESHOLD, LIMIT or end of query', ['THRESHOLD', 'LIMIT', 'end of query']],
    ['FUZZY "x" THRESHOLD 0.5 LIMIT 5 foo', 32, 'Unexpected "foo" at position 32; expected end of query', ['end of query']],
    [
      'SEARCH "x" LIMIT 5 !',
      19,
      'Unexpected "!" at position 19; expected FROM, WHERE, MIN_SIMILARITY or end of query',
      ['FROM', 'WHERE', 'MIN_SIMILARITY', 'end of query'],
    ],
    ['TRAVERSE TYPE "authored_by" DEPTH 2', 35, 'Expected a FROM "key" clause in TRAVERSE at position 35, found end of query', ['FROM']],
    ['TRAVERSE', 8, 'Expected a FROM "key" clause in TRAVERSE at position 8, found end of query', ['FROM']],

    // Tables
    ['SEARCH "x" FROM', 15, 'Expected a table name after FROM at position 15, found end of query', ['resources', 'entities', 'moments']],
    ['SEARCH "x" FROM 3', 16, 'Expected a table name after FROM at position 16, found number 3', ['resources', 'entities', 'moments']],
    ['SEARCH "x" FROM users', 16, 'Unknown table "users" at position 16; expected resources, entities or moments', ['resources', 'entities', 'moments']],
    [
      'SEARCH "x" FROM constructor',
      16,
      'Unknown table "constructor" at position 16; expected resources, entities or moments',
      ['resources', 'entities', 'moments'],
    ],

    // Numbers
    ['FUZZY "sara" THRESHOLD 1.5', 23, 'THRESHOLD must be between 0 and 1 at position 23, found 1.5', ['a number between 0 and 1']],
    ['FUZZY "sara" THRESHOLD -0.1', 23, 'THRESHOLD must be between 0 and 1 at position 23, found -0.1', ['a number between 0 and 1']],
    ['FUZZY "sara" THRESHOLD high', 23, 'Expected a number after THRESHOLD at position 23, found "high"', ['a number between 0 and 1']],
    ['FUZZY "sara" THRESHOLD', 22, 'Expected a number after THRESHOLD at position 22, found end of query', ['a number between 0 and 1']],
    ['SEARCH "x" MIN_SIMILARITY 2', 26, 'MIN_SIMILARITY must be between 0 and 1 at position 26, found 2', ['a number between 0 and 1']],
    ['FUZZY "x" LIMIT 0', 16, 'LIMIT must be a positive integer at position 16, found 0', ['an integer from 1 to 100']],
    ['FUZZY "x" LIMIT -3', 16, 'LIMIT must be a positive integer at position 16, found -3', ['an integer from 1 to 100']],
    ['SEARCH "x" LIMIT 2.5', 17, 'LIMIT must be a positive integer at position 17, found 2.5', ['an integer from 1 to 100']],
    ['SEARCH "x" LIMIT ten', 17, 'Expected a positive integer after LIMIT at position 17, found "ten"', ['an integer from 1 to 100']],
    ['FUZZY "x" LIMIT 101', 16, 'LIMIT must be at most 100 at position 16, found 101', ['an integer from 1 to 100']],
    ['TRAVERSE FROM "a" LIMIT 500', 24, 'LIMIT must be at most 100 at position 24, found 500', ['an integer from 1 to 100']],
    ['TRAVERSE DEPTH 1.5 FROM "a"', 15, 'DEPTH must be a positive integer at position 15, found 1.5', ['an integer from 1 to 5']],
    ['TRAVERSE FROM "a" DEPTH 0', 24, 'DEPTH must be a positive integer at position 24, found 0', ['an integer from 1 to 5']],
    ['TRAVERSE FROM "a" DEPTH 6', 24, 'DEPTH must be at most 5 at position 24, found 6', ['an integer from 1 to 5']],
    ['TRAVERSE FROM "a" DEPTH', 23, 'Expected a positive integer after DEPTH at position 23, found end of query', ['an integer from 1 to 5']],
    ['FUZZY "x" LIMIT 10abc', 16, 'Invalid number "10abc" at position 16; expected a number such as 10 or 0.5', ['a number']],
    ['FUZZY "x" THRESHOLD 0.5.1', 20, 'Invalid number "0.5.1" at position 20; expected a number such as 10 or 0.5', ['a number']],
  ])('%j', (query, position, message, expected) => {
    const error = syntaxError(query);
    expect(error.message).toBe(message);
    expect(error.position).toBe(position);
    expect(error.expected).toEqual(expected);
  });

  it('reports limits and depths against the configured maxima', () => {
    const limit = syntaxError('FUZZY "x" LIMIT 30', { maxLimit: 25 });
    expect(limit.message).toBe('LIMIT must be at most 25 at position 16, found 30');
    expect(limit.expected).toEqual(['an integer from 1 to 25']);
    const depth = syntaxError('TRAVERSE FROM "a" DEPTH 3', { maxDepth: 2 });
    expect(depth.message).toBe('DEPTH must be at most 2 at position 24, found 3');
    expect(depth.position).toBe(24);
  });

  it('points at the offending token in multi-line queries', () => {
    const query = 'SEARCH "x"\n  FROM entities\n  LIMTI 5';
    const error = syntaxError(query);
    expect(error.position).toBe(query.indexOf('LIMTI'));
    expect(error.message).toBe(`Unknown clause "LIMTI" at position ${query.indexOf('LIMTI')}; expected WHERE, LIMIT or MIN_SIMILARITY`);
  });

  it('shortens long strings in messages', () => {
    const text = 'x'.repeat(80);
    const error = syntaxError(`LOOKUP "a" "${text}"`);
    expect(error.message).toBe(`Unexpected string "${'x'.repeat(36)}... at position 11; expected "," or end of query`);
  });
});
