import { describe, expect, it } from 'vitest';
import { ForbiddenError, QuerySyntaxError } from '../../src/errors.js';
import { checkSqlQuery, tokenizeSql } from '../../src/rem/sql-guard.js';

function refusal(sql: string): Error {
  try {
    checkSqlQuery(sql);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${JSON.stringify(sql)} to be refused`);
}

describe('SQL guard', () => {
  it.each([
    'SELECT key, name FROM entities WHERE key = \'a\' ORDER BY key LIMIT 5',
    'select count(*) filter (where tags @> array[\'x\']) over (partition by entity_type) from kv_store',
    'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r',
    'WITH a AS (SELECT key FROM entities), b(k) AS MATERIALIZED (SELECT key FROM resources) SELECT * FROM a, b',
    'SELECT e.key FROM entities e CROSS JOIN LATERAL jsonb_array_elements(e.graph_edges) AS x(edge) WHERE x.edge->>\'rel_type\' = \'authored\'',
    'SELECT CAST(weight AS numeric(4, 2)), created_at::timestamp(0), extract(year from created_at) FROM entities',
    'SELECT similarity(entity_key, \'sara\') AS s FROM kv_store WHERE entity_key % \'sara\'',
    'SELECT E\'it\\\'s\' AS s, \'it\'\'s\' AS t, "key" FROM entities',
    'SELECT key FROM entities WHERE EXISTS (SELECT 1 FROM kv_store k WHERE k.entity_id = entities.id) AND key IN (\'a\', \'b\')',
    'SELECT substring(content from 1 for 10), coalesce(name, key), left(key, 3) FROM entities -- a comment with DELETE\n',
    'SELECT /* nested /* DROP */ comment */ key FROM entities',
  ])('allows %s', (sql) => {
    expect(() => checkSqlQuery(sql)).not.toThrow();
  });

  it.each([
    ['DELETE FROM entities', /only SELECT/],
    ['TABLE entities', /only SELECT/],
    ['VALUES (1)', /only SELECT/],
    ['EXPLAIN SELECT 1', /only SELECT/],
    ['SELECT 1; SELECT 2', /one statement/],
    ['WITH x AS (UPDATE entities SET key = \'a\' RETURNING *) SELECT * FROM x', /UPDATE/],
    ['WITH x AS (INSERT INTO entities DEFAULT VALUES RETURNING *) SELECT * FROM x', /INSERT/],
    ['SELECT * FROM entities FOR NO KEY UPDATE', /UPDATE|row locks/],
    ['SELECT * FROM entities FOR SHARE', /SHARE/],
    ['SELECT key INTO TEMP t FROM entities', /INTO/],
    ['SELECT set_config(\'role\', \'postgres\', false)', /set_config/],
    ['SELECT "set_config"(\'role\', \'postgres\', false)', /set_config/],
    ['SELECT SET_CONFIG (\'role\', \'postgres\', false)', /set_config/],
    ['SELECT set_config/**/(\'role\', \'postgres\', false)', /set_config/],
    ['SELECT pg_catalog.set_config(\'role\', \'postgres\', false)', /pg_catalog/],
    ['SELECT x.lower(key) FROM entities x', /schema-qualified/],
    ['SELECT pg_sleep(10)', /pg_sleep/],
    ['SELECT "pg_sleep"(10)', /pg_sleep/],
    ['SELECT pg_read_file(\'/etc/passwd\')', /pg_read_file/],
    ['SELECT * FROM dblink(\'x\', \'y\') AS t(a int)', /dblink/],
    ['SELECT txid_current()', /txid_current/],
    ['SELECT version()', /version/],
    ['SELECT lo_export(1, \'/tmp/x\')', /lo_export/],
    ['SELECT * FROM pg_class', /pg_class/],
    ['SELECT * FROM "pg_catalog"."pg_authid"', /pg_catalog/],
    ['SELECT * FROM information_schema.columns', /information_schema/],
    ['SELECT * FROM public.sessions', /public/],
    ['SELECT DISTINCT pg_sleep(1)', /pg_sleep/],
    ['SELECT 1 WHERE exists(SELECT generate_series(1, 10))', /generate_series/],
    ['WITH a AS (SELECT 1), b AS (SELECT query_to_xml(\'select 1\', true, true, \'\')) SELECT * FROM b', /query_to_xml/],
    ['SELECT $1', /Parameters/],
    ['SELECT $tag$x$tag$', /dollar/],
    ['SELECT U&"\\0070g_sleep"(1)', /Unicode/],
    ['SELECT 1 /* unterminated', /Unterminated/],
    ['SELECT \'unterminated', /Unterminated/],
    ['SELECT (1', /Unbalanced/],
    ['SELECT 1)', /Unbalanced/],
    ['SELECT E\'\\\'\' , pg_sleep(1) --\'', /pg_sleep/],
  ])('refuses %s', (sql, message) => {
    const error = refusal(sql);
    expect(error instanceof ForbiddenError || error instanceof QuerySyntaxError).toBe(true);
    expect(error.message).toMatch(message);
  });

  it('understands nested comments and escaped quotes the way PostgreSQL does', () => {
    expect(tokenizeSql('SELECT /* a /* b */ c */ 1').map((t) => t.text)).toEqual(['select', '1']);
    // All one comment for PostgreSQL too, so nothing is hidden from the guard.
    expect(tokenizeSql('SELECT 1 /* /* */ , pg_sleep(1) -- */').map((t) => t.text)).toEqual(['select', '1']);
    expect(tokenizeSql("SELECT 'a''b', E'c\\'d', \"Q\"\"x\"").map((t) => t.kind)).toEqual(['word', 'string', 'punct', 'string', 'punct', 'qident']);
    expect(tokenizeSql('SELECT "Q""x"').at(-1)).toMatchObject({ kind: 'qident', text: 'Q"x' });
  });

  it('reports positions relative to the whole REM query', () => {
    const error = refusal.call(null, 'SELECT pg_sleep(1)');
    expect(error.message).toMatch(/position 7/);
    try {
      checkSqlQuery('SELECT pg_sleep(1)', 4);
    } catch (e) {
      expect((e as Error).message).toMatch(/position 11/);
    }
  });
});
