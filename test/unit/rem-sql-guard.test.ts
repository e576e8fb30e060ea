import { describe, expect, it } from 'vitest';
import { ForbiddenError, QuerySyntaxError } from '../../src/errors.js';
import { checkSqlQuery } from '../../src/rem/sql-guard.js';

async function refusal(sql: string, offset = 0): Promise<Error> {
  try {
    await checkSqlQuery(sql, offset);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${JSON.stringify(sql)} to be refused`);
}

describe('SQL guard (PostgreSQL parse tree)', () => {
  it.each([
    "SELECT key, name FROM entities WHERE key = 'a' ORDER BY key LIMIT 5",
    "select count(*) filter (where tags @> array['x']) over (partition by entity_type) from kv_store",
    'WITH a AS (SELECT key FROM entities), b(k) AS MATERIALIZED (SELECT key FROM resources) SELECT * FROM a, b',
    "SELECT e.key FROM entities e CROSS JOIN LATERAL jsonb_array_elements(e.graph_edges) AS x(edge) WHERE x.edge->>'rel_type' = 'authored'",
    'SELECT CAST(weight AS numeric(4, 2)), created_at::timestamp(0), extract(year from created_at) FROM entities',
    "SELECT similarity(entity_key, 'sara') AS s FROM kv_store WHERE entity_key % 'sara'",
    "SELECT E'it\\'s' AS s, 'it''s' AS t, \"key\" FROM entities",
    "SELECT key FROM entities WHERE EXISTS (SELECT 1 FROM kv_store k WHERE k.entity_id = entities.id) AND key IN ('a', 'b')",
    "SELECT substring(content from 1 for 10), coalesce(name, key), left(key, 3), trim(both ' ' from name) FROM entities -- DELETE\n",
    'SELECT /* nested /* DROP */ comment */ key FROM entities',
    'SELECT key FROM rem_sql_custom.entities',
    'SELECT key FROM entities UNION ALL SELECT entity_key FROM kv_store ORDER BY 1',
    // Literals a token scanner had to refuse are plain strings in a parse tree.
    "SELECT $$pg_sleep(1)$$ AS s, U&'\\0070g' AS u",
    'TABLE entities',
    "VALUES (1, 'a'), (2, 'b')",
    'SELECT n FROM generate_series(1, 100) AS n',
    'SELECT a, b FROM generate_series(1, 100) a, generate_series(0, 198, 2) b',
    "SELECT string_agg(lpad(n::text, 5, '0'), ',') FROM generate_series(1, 10) n",
    "SELECT replace(replace(key, '-', ' '), '_', ' ') FROM entities",
    "SELECT regexp_replace(content, '\\s+', ' ', 'g') FROM entities",
    "SELECT now() AT TIME ZONE 'utc', current_date, key SIMILAR TO 'a%', key LIKE 'a!%' ESCAPE '!' FROM entities",
    'SELECT * FROM jsonb_to_recordset(\'[{"a":1}]\') AS x(a int, b text[])',
    'SELECT e.key, k.entity_type FROM entities e LEFT JOIN kv_store k USING (tenant_id) WHERE e.key IS NOT NULL',
  ])('accepts %s', async (sql) => {
    await expect(checkSqlQuery(sql)).resolves.toBeUndefined();
  });

  it.each([
    // Not a single SELECT
    ['DELETE FROM entities', ForbiddenError, /only SELECT.*DELETE/],
    ["UPDATE entities SET key = 'a'", ForbiddenError, /only SELECT.*UPDATE/],
    ["INSERT INTO entities (key) VALUES ('x')", ForbiddenError, /only SELECT.*INSERT/],
    ['CREATE TABLE x (a int)', ForbiddenError, /only SELECT.*CREATE/],
    ['DROP TABLE entities', ForbiddenError, /only SELECT.*DROP/],
    ['ALTER TABLE entities ADD COLUMN x int', ForbiddenError, /only SELECT.*ALTER/],
    ['TRUNCATE entities', ForbiddenError, /only SELECT.*TRUNCATE/],
    ['COPY entities TO STDOUT', ForbiddenError, /only SELECT.*COPY/],
    ['SET ROLE postgres', ForbiddenError, /only SELECT/],
    ['EXPLAIN ANALYZE SELECT 1', ForbiddenError, /only SELECT.*EXPLAIN/],
    ['BEGIN', ForbiddenError, /only SELECT/],
    ['SELECT 1; SELECT 2', ForbiddenError, /one statement/],
    ['SELECT 1; DELETE FROM entities', ForbiddenError, /one statement/],
    ["WITH x AS (UPDATE entities SET key = 'a' RETURNING *) SELECT * FROM x", ForbiddenError, /UPDATE/],
    ['WITH x AS (DELETE FROM entities RETURNING *) SELECT * FROM x', ForbiddenError, /DELETE/],
    ['SELECT key INTO TEMP t FROM entities', ForbiddenError, /INTO/],
    // Locks
    ['SELECT * FROM entities FOR UPDATE', ForbiddenError, /FOR UPDATE/],
    ['SELECT * FROM entities FOR NO KEY UPDATE', ForbiddenError, /locking/],
    ['SELECT * FROM entities FOR SHARE SKIP LOCKED', ForbiddenError, /locking/],
    ['SELECT 1 UNION (SELECT 1 FROM entities FOR KEY SHARE)', ForbiddenError, /locking/],
    // Unbounded work
    ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', ForbiddenError, /recursive/],
    ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r', ForbiddenError, /recursive/],
    ['SELECT * FROM (WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r) s', ForbiddenError, /recursive/],
    ['SELECT generate_series(1, 100000000)', ForbiddenError, /generate_series.*at most 10000/],
    ['SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 1000) b', ForbiddenError, /all series together/],
    ['SELECT generate_series(1, n) FROM (SELECT 5 AS n) s', ForbiddenError, /integer constants/],
    ["SELECT * FROM generate_series(now(), now() + interval '1 year', interval '1 second')", ForbiddenError, /integer constants/],
    ['SELECT generate_series(1, 10, 0)', ForbiddenError, /non-zero step/],
    // Huge values
    ["SELECT repeat('x', 100000000)", ForbiddenError, /repeat\(\)/],
    ["SELECT lpad('x', 100000000)", ForbiddenError, /lpad\(\).*at most 1000/],
    ['SELECT rpad(key, length(content) * 1000) FROM entities', ForbiddenError, /rpad\(\)/],
    ["SELECT string_agg(content, '') FROM entities, generate_series(1, 100000)", ForbiddenError, /generate_series/],
    ["SELECT replace(replace('aa', 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa')", ForbiddenError, /already lengthened/],
    ["SELECT replace(content, 'a', repeat('a', 1000)) FROM entities", ForbiddenError, /constant replacement/],
    ["SELECT regexp_replace(regexp_replace(content, '', 'xxxxxxxx', 'g'), '', 'xxxxxxxx', 'g') FROM entities", ForbiddenError, /already lengthened/],
    ['SELECT array_fill(1, ARRAY[100000000])', ForbiddenError, /array_fill/],
    ["SELECT format('%1000000000s', 'x')", ForbiddenError, /format/],
    // Functions and casts that reach outside
    ["SELECT set_config('role', 'postgres', false)", ForbiddenError, /set_config/],
    ["SELECT \"set_config\"('role', 'postgres', false)", ForbiddenError, /set_config/],
    ["SELECT SET_CONFIG /* hidden */ ('role', 'postgres', false)", ForbiddenError, /set_config/],
    ['SELECT U&"\\0070g_sleep"(1)', ForbiddenError, /pg_sleep/],
    ["SELECT pg_catalog.set_config('role', 'postgres', false)", ForbiddenError, /schema-qualified.*pg_catalog/],
    ['SELECT x.lower(key) FROM entities x', ForbiddenError, /schema-qualified/],
    ['SELECT pg_sleep(10)', ForbiddenError, /pg_sleep/],
    ["SELECT pg_read_file('/etc/passwd')", ForbiddenError, /pg_read_file/],
    ["SELECT * FROM dblink('x', 'y') AS t(a int)", ForbiddenError, /dblink/],
    ["SELECT current_setting('remgraph.user_id')", ForbiddenError, /current_setting/],
    ["SELECT query_to_xml('select 1', true, true, '')", ForbiddenError, /query_to_xml/],
    ["SELECT lo_export(1, '/tmp/x')", ForbiddenError, /lo_export/],
    ["SELECT 'pg_class'::regclass", ForbiddenError, /type regclass/],
    ["SELECT CAST('x' AS xml)", ForbiddenError, /type xml/],
    ['SELECT 1 OPERATOR(pg_catalog.+) 1', ForbiddenError, /schema-qualified operators/],
    ['SELECT xmlelement(name a)', ForbiddenError, /XmlExpr/],
    ['SELECT key FROM entities TABLESAMPLE system (50)', ForbiddenError, /RangeTableSample/],
    ['SELECT $1', ForbiddenError, /Parameters/],
    // Relations
    ['SELECT * FROM pg_class', ForbiddenError, /pg_class/],
    ['SELECT * FROM "pg_catalog"."pg_authid"', ForbiddenError, /pg_catalog/],
    ['SELECT * FROM information_schema.columns', ForbiddenError, /information_schema/],
    ['SELECT * FROM public.sessions', ForbiddenError, /public/],
    ['SELECT * FROM sessions', QuerySyntaxError, /relation "sessions" does not exist.*resources, entities/],
    ['WITH sessions AS (SELECT 1) SELECT * FROM rem_sql_custom.sessions', QuerySyntaxError, /sessions/],
    // Text a C parser would cut short
    ['SELECT 1\0; DELETE FROM entities', QuerySyntaxError, /NUL/],
    // Text PostgreSQL cannot parse
    ['SELECT 1 /* unterminated', QuerySyntaxError, /syntax|unterminated/i],
    ["SELECT 'unterminated", QuerySyntaxError, /unterminated/i],
    ['SELECT key FROM entities WHERE', QuerySyntaxError, /syntax error/],
    ['-- only a comment', QuerySyntaxError, /Expected an SQL statement/],
  ])('refuses %s', async (sql, type, message) => {
    const error = await refusal(sql);
    expect(error).toBeInstanceOf(type);
    expect(error.message).toMatch(message);
  });

  it('refuses trees too deep to check, and keeps working afterwards', async () => {
    const sum = 'SELECT ' + Array.from({ length: 1000 }, () => '1').join(' + ');
    expect(await refusal(sum)).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/nested this deeply/) });
    const calls = 'SELECT ' + 'lower('.repeat(2000) + "'x'" + ')'.repeat(2000);
    expect(await refusal(calls)).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/nested this deeply/) });
    const parens = 'SELECT ' + '('.repeat(100_000) + '1' + ')'.repeat(100_000);
    expect(await refusal(parens)).toMatchObject({ code: 'QUERY_SYNTAX', message: expect.stringMatching(/memory exhausted/) });
    await expect(checkSqlQuery('SELECT key FROM entities')).resolves.toBeUndefined();
  });

  it('reports positions relative to the whole REM query', async () => {
    expect((await refusal('SELECT pg_sleep(1)')).message).toMatch(/position 7\)/);
    expect((await refusal('SELECT pg_sleep(1)', 4)).message).toMatch(/position 11\)/);
    const syntax = (await refusal('SELECT key FROM entities WHERE', 4)) as QuerySyntaxError;
    expect(syntax.position).toBe(4 + 'SELECT key FROM entities WHERE'.length);
  });

  it('takes its series bound from the limits it is given', async () => {
    await expect(checkSqlQuery('SELECT generate_series(1, 50)', 0, { maxSeriesRows: 10 })).rejects.toThrow(/at most 10 rows/);
    await expect(checkSqlQuery('SELECT generate_series(1, 10)', 0, { maxSeriesRows: 10 })).resolves.toBeUndefined();
  });
});
