/**
 * Static checks for REM SQL mode, run before the database sees the query. They are the first of
 * three layers: the query then runs in a READ ONLY transaction as the role rem_reader_custom, which
 * can read nothing but the scoped views of schema rem_sql_custom (see the rem_sql_scope migration).
 *
 * The checks work on tokens (comments, quoted identifiers and string literals are understood the way
 * PostgreSQL understands them, including nested block comments and E'' strings), so casing, comments
 * and quoting cannot hide a statement or a function call. What they enforce:
 *  - exactly one statement, starting with SELECT or WITH;
 *  - no keyword that writes, changes settings, locks or creates (INSERT, UPDATE, DELETE, MERGE, COPY,
 *    SET, RESET, CREATE, DROP, ALTER, GRANT, INTO, FOR UPDATE/SHARE, ...);
 *  - every function call is on an allow-list (no set_config, pg_sleep, pg_read_file, dblink,
 *    query_to_xml, lo_*, ...); calls cannot be schema-qualified;
 *  - no system schemas or catalogs (pg_*, information_schema, public);
 *  - no parameters, dollar-quoted strings or Unicode-escape (U&) literals.
 */
import { ForbiddenError, QuerySyntaxError } from '../errors.js';

export interface SqlToken {
  kind: 'word' | 'qident' | 'string' | 'number' | 'op' | 'punct';
  /** Words are ASCII-lower-cased (as PostgreSQL folds them); quoted identifiers are unescaped. */
  text: string;
  pos: number;
}

const ALLOWED_FUNCTIONS = new Set(
  `count sum avg min max array_agg string_agg json_agg jsonb_agg json_object_agg jsonb_object_agg bool_and bool_or every
  stddev stddev_pop stddev_samp variance var_pop var_samp percentile_cont percentile_disc mode
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  coalesce nullif greatest least abs round floor ceil ceiling trunc sign mod power sqrt cbrt ln log log10 exp div width_bucket
  lower upper initcap length char_length character_length octet_length bit_length substr substring left right trim btrim
  ltrim rtrim replace translate concat concat_ws split_part strpos position starts_with reverse md5 quote_literal quote_ident
  regexp_replace regexp_match regexp_matches regexp_like regexp_count regexp_substr regexp_instr regexp_split_to_array
  regexp_split_to_table string_to_array array_to_string to_hex ascii chr unaccent
  now date_trunc date_part extract to_char to_date to_timestamp to_number age make_interval make_date make_time
  make_timestamp make_timestamptz justify_days justify_hours justify_interval isfinite date_bin timezone
  to_json to_jsonb row_to_json array_to_json json_build_object jsonb_build_object json_build_array jsonb_build_array
  json_object jsonb_object json_array_elements jsonb_array_elements json_array_elements_text jsonb_array_elements_text
  json_array_length jsonb_array_length json_each jsonb_each json_each_text jsonb_each_text json_object_keys jsonb_object_keys
  json_extract_path jsonb_extract_path json_extract_path_text jsonb_extract_path_text json_typeof jsonb_typeof
  jsonb_strip_nulls json_strip_nulls jsonb_pretty jsonb_set jsonb_insert jsonb_path_query jsonb_path_query_array
  jsonb_path_query_first jsonb_path_exists jsonb_path_match json_populate_record jsonb_to_record jsonb_to_recordset
  array_length array_position array_positions array_append array_prepend array_cat array_remove array_replace unnest
  cardinality array_dims array_upper array_lower array_ndims
  similarity word_similarity strict_word_similarity show_trgm
  numeric decimal varchar character char timestamp timestamptz time timetz interval bit varbit float
  grouping cube rollup`.split(/\s+/),
);

/** Words that may stand before "(" without being a function call. */
const KEYWORDS_BEFORE_PAREN = new Set(
  `select from where and or not in exists any all some as on using join lateral values cast row array over filter
  group by order having when then else case between like ilike similar is distinct union intersect except limit offset
  with recursive materialized partition rows range groups within escape asc desc nulls first last only fetch inner
  outer full cross natural sets ordinality end symmetric asymmetric at zone collate isnull notnull`.split(/\s+/),
);

const FORBIDDEN_KEYWORDS = new Map<string, string>(
  Object.entries({
    insert: 'writes',
    update: 'writes',
    delete: 'writes',
    merge: 'writes',
    truncate: 'writes',
    upsert: 'writes',
    copy: 'COPY',
    into: 'SELECT INTO (it creates a table)',
    create: 'DDL',
    alter: 'DDL',
    drop: 'DDL',
    comment: 'DDL',
    grant: 'privilege changes',
    revoke: 'privilege changes',
    set: 'changing settings or roles',
    reset: 'changing settings or roles',
    role: 'changing settings or roles',
    session_authorization: 'changing settings or roles',
    lock: 'locks',
    share: 'locks',
    nowait: 'locks',
    call: 'procedure calls',
    do: 'anonymous code blocks',
    execute: 'dynamic SQL',
    prepare: 'dynamic SQL',
    deallocate: 'dynamic SQL',
    declare: 'cursors',
    listen: 'notifications',
    notify: 'notifications',
    unlisten: 'notifications',
    vacuum: 'maintenance commands',
    analyze: 'maintenance commands',
    cluster: 'maintenance commands',
    reindex: 'maintenance commands',
    refresh: 'maintenance commands',
    checkpoint: 'maintenance commands',
    discard: 'session commands',
    load: 'loading libraries',
    import: 'IMPORT',
    begin: 'transaction control',
    commit: 'transaction control',
    rollback: 'transaction control',
    savepoint: 'transaction control',
    release: 'transaction control',
    start: 'transaction control',
    abort: 'transaction control',
    security: 'security settings',
    owner: 'DDL',
  }),
);

const FORBIDDEN_NAMES = new Set(['public', 'information_schema', 'pg_catalog', 'pg_toast', 'pg_temp']);

export const REM_SQL_TABLES = ['resources', 'entities', 'moments', 'kv_store', 'embeddings'] as const;

/**
 * Checks an SQL-mode query. `offset` is where the SQL starts within the whole REM query, so that
 * positions in errors point into what the caller wrote.
 * @throws ForbiddenError for a refused statement or function, QuerySyntaxError for malformed text.
 */
export function checkSqlQuery(sql: string, offset = 0): SqlToken[] {
  const tokens = tokenizeSql(sql, offset);
  const first = tokens[0];
  if (!first) throw new QuerySyntaxError('Expected an SQL statement, found nothing', offset, ['SELECT', 'WITH']);
  if (first.kind !== 'word' || (first.text !== 'select' && first.text !== 'with')) {
    refuse(`SQL mode runs only SELECT queries (optionally starting with WITH); found ${describe(first)} at position ${first.pos}`);
  }

  let depth = 0;
  // Paren depths at which a WITH list is being read (a CTE name may be followed by a column list).
  const cteLists: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    if (token.kind === 'punct') {
      if (token.text === ';') refuse(`SQL mode runs one statement only; found ";" at position ${token.pos}`);
      if (token.text === '(') depth += 1;
      if (token.text === ')') {
        depth -= 1;
        if (depth < 0) throw new QuerySyntaxError(`Unbalanced ")" at position ${token.pos}`, token.pos, ['end of query']);
      }
      continue;
    }
    if (token.kind !== 'word' && token.kind !== 'qident') continue;

    const name = token.text;
    if (token.kind === 'word') {
      const reason = FORBIDDEN_KEYWORDS.get(name);
      if (reason) refuse(`SQL mode is read-only: ${name.toUpperCase()} (${reason}) is not allowed (position ${token.pos})`);
      if (name === 'for' && next?.kind === 'word' && ['no', 'key'].includes(next.text)) {
        refuse(`SQL mode is read-only: row locks (FOR ...) are not allowed (position ${token.pos})`);
      }
      if (name === 'with') cteLists.push(depth);
      if (name === 'select' && cteLists.at(-1) === depth) cteLists.pop();
    }
    if (FORBIDDEN_NAMES.has(name) || name.startsWith('pg_')) {
      refuse(
        `SQL mode reads only the REM tables (${REM_SQL_TABLES.join(', ')}); "${name}" at position ${token.pos} is not allowed`,
      );
    }
    if (next?.kind !== 'punct' || next.text !== '(') continue;
    // name( ... : a function call, unless a keyword, an alias column list (AS t(a, b)) or a CTE column list.
    if (token.kind === 'word' && KEYWORDS_BEFORE_PAREN.has(name)) continue;
    if (prev?.kind === 'word' && prev.text === 'as') continue;
    const inCteList = cteLists.at(-1) === depth;
    if (inCteList && (prev?.kind === 'punct' ? prev.text === ',' : prev?.kind === 'word' && ['with', 'recursive'].includes(prev.text))) {
      continue;
    }
    if (prev?.kind === 'punct' && prev.text === '.') {
      refuse(`SQL mode does not allow schema-qualified function calls (position ${token.pos})`);
    }
    if (!ALLOWED_FUNCTIONS.has(name)) {
      refuse(`SQL mode does not allow the function ${name}() (position ${token.pos}); allowed are aggregates, string, date, JSON, array and trigram functions`);
    }
  }
  if (depth !== 0) throw new QuerySyntaxError(`Unbalanced "(": ${depth} not closed`, offset + sql.length, ['")"']);
  return tokens;
}

function refuse(message: string): never {
  throw new ForbiddenError(message);
}

function describe(token: SqlToken): string {
  return token.kind === 'word' ? token.text.toUpperCase() : `"${token.text}"`;
}

const OPERATOR_CHARS = '+-*/<>=~!@#%^&|`?';

/** Splits SQL into tokens the way PostgreSQL's lexer does for the constructs allowed here. */
export function tokenizeSql(sql: string, offset = 0): SqlToken[] {
  const tokens: SqlToken[] = [];
  const n = sql.length;
  let i = 0;
  const syntax = (message: string, at: number, expected: string[]): never => {
    throw new QuerySyntaxError(`${message} at position ${offset + at}`, offset + at, expected);
  };
  while (i < n) {
    const ch = sql[i]!;
    const start = i;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n' && sql[i] !== '\r') i += 1;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      // Block comments nest in PostgreSQL.
      let level = 0;
      while (i < n) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          level += 1;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          level -= 1;
          i += 2;
          if (level === 0) break;
        } else i += 1;
      }
      if (level !== 0) syntax('Unterminated /* comment', start, ['*/']);
      continue;
    }
    if (ch === '$') syntax('Parameters and dollar-quoted strings are not allowed in SQL mode', start, ['a literal']);
    if (ch === "'") {
      i = skipString(sql, i, false, (at) => syntax("Unterminated string literal", at, ["'"]));
      tokens.push({ kind: 'string', text: sql.slice(start, i), pos: offset + start });
      continue;
    }
    if (ch === '"') {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= n) syntax('Unterminated quoted identifier', start, ['"']);
        if (sql[i] === '"') {
          if (sql[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        value += sql[i];
        i += 1;
      }
      if (value === '') syntax('Zero-length quoted identifier', start, ['an identifier']);
      tokens.push({ kind: 'qident', text: value, pos: offset + start });
      continue;
    }
    if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      while (i < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[i]!)) i += 1;
      const raw = sql.slice(start, i);
      const lower = raw.replace(/[A-Z]/g, (c) => c.toLowerCase());
      if ((lower === 'u' && sql[i] === '&') || raw.endsWith('$')) {
        syntax('Unicode-escape literals and identifiers ending in $ are not allowed in SQL mode', start, ['a literal']);
      }
      if (sql[i] === "'" && ['e', 'b', 'x', 'n'].includes(lower)) {
        i = skipString(sql, i, lower === 'e', (at) => syntax('Unterminated string literal', at, ["'"]));
        tokens.push({ kind: 'string', text: sql.slice(start, i), pos: offset + start });
        continue;
      }
      tokens.push({ kind: 'word', text: lower, pos: offset + start });
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(i))!;
      i += m[0].length;
      tokens.push({ kind: 'number', text: m[0], pos: offset + start });
      continue;
    }
    if (ch === ':' && sql[i + 1] === ':') {
      tokens.push({ kind: 'op', text: '::', pos: offset + start });
      i += 2;
      continue;
    }
    if ('(),;.[]:'.includes(ch)) {
      tokens.push({ kind: 'punct', text: ch, pos: offset + start });
      i += 1;
      continue;
    }
    if (OPERATOR_CHARS.includes(ch)) {
      while (i < n && OPERATOR_CHARS.includes(sql[i]!) && !(sql[i] === '-' && sql[i + 1] === '-') && !(sql[i] === '/' && sql[i + 1] === '*')) i += 1;
      tokens.push({ kind: 'op', text: sql.slice(start, i), pos: offset + start });
      continue;
    }
    syntax(`Unexpected character ${JSON.stringify(ch)}`, start, ['an SQL token']);
  }
  return tokens;
}

/** Returns the index after a '...' literal starting at `i` ('' escapes a quote; E'' strings also take backslash escapes). */
function skipString(sql: string, i: number, backslashes: boolean, unterminated: (at: number) => never): number {
  const start = i;
  i += 1;
  for (;;) {
    if (i >= sql.length) unterminated(start);
    const c = sql[i]!;
    if (backslashes && c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      if (sql[i + 1] === "'") {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
}
