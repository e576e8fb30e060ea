/**
 * Static checks for REM SQL mode, run before the database sees the query. They are the first of
 * three layers: the query then runs in a READ ONLY transaction as the role rem_reader_custom, which
 * can read nothing but the scoped views of schema rem_sql_custom (see the rem_sql_scope migration),
 * bounded in time, rows and bytes (see RemService.sql).
 *
 * The query is parsed by PostgreSQL's own parser (libpg-query, compiled to WebAssembly), so casing,
 * comments, quoting and escapes cannot hide anything: what is checked is what PostgreSQL will run.
 * Every node of the parse tree must be of an allowed type, and:
 *  - exactly one statement, a SELECT (VALUES and TABLE are SELECTs too), with no INTO, no locking
 *    clause (FOR UPDATE/SHARE) and no recursive CTE (TRAVERSE walks graphs, bounded);
 *  - relations are the REM tables and the caller's conversation tables (or the query's own CTEs),
 *    unqualified or in rem_sql_custom;
 *  - every function is on an allow-list (no set_config, pg_sleep, pg_read_file, dblink, repeat, ...);
 *    calls cannot be schema-qualified; generate_series takes integer constants and all the series of
 *    a query together may produce at most `maxSeriesRows` rows; lpad/rpad pad to a constant length
 *    of at most MAX_PADDED_CHARS; replace and regexp_replace take constant replacements, at most
 *    MAX_REPLACEMENT_CHARS long, and cannot grow a value that another of them already grew;
 *  - casts only to plain scalar types (no regclass, regproc, xml, ...); no parameters.
 */
import { ForbiddenError, QuerySyntaxError } from '../errors.js';
import { parseSql, SqlParseError, SqlTreeTooDeepError } from './sql-parser.js';

/** The relations SQL mode reads: one scoped view each in rem_sql_custom (migrations rem_sql_scope, rem_sql_conversation_views). */
export const REM_SQL_TABLES = [
  'resources',
  'entities',
  'moments',
  'kv_store',
  'embeddings',
  // The caller's own conversation (p8's checks run SQL over it).
  'messages',
  'turns',
  'llm_calls',
  'agents',
] as const;

/** The schema of the scoped views; the only schema a query may name. */
const REM_SQL_SCHEMA = 'rem_sql_custom';

export interface SqlGuardLimits {
  /** Rows all generate_series calls of one query may produce together (their product). */
  maxSeriesRows: number;
}

const DEFAULT_SQL_GUARD_LIMITS: SqlGuardLimits = { maxSeriesRows: 10_000 };

/** Longest lpad/rpad result: padding is the one way to build a long value from a short query. */
const MAX_PADDED_CHARS = 1000;
/** Longest replacement text of replace/regexp_replace. */
const MAX_REPLACEMENT_CHARS = 16;

const ALLOWED_FUNCTIONS = new Set(
  `count sum avg min max array_agg string_agg json_agg jsonb_agg json_object_agg jsonb_object_agg bool_and bool_or every
  stddev stddev_pop stddev_samp variance var_pop var_samp percentile_cont percentile_disc mode
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  abs round floor ceil ceiling trunc sign mod power sqrt cbrt ln log log10 exp div width_bucket
  lower upper initcap length char_length character_length octet_length bit_length substr substring left right trim btrim
  ltrim rtrim replace translate concat concat_ws split_part strpos position starts_with reverse md5 quote_literal quote_ident
  lpad rpad regexp_replace regexp_match regexp_matches regexp_like regexp_count regexp_substr regexp_instr
  regexp_split_to_array regexp_split_to_table string_to_array array_to_string to_hex ascii chr
  now date_trunc date_part extract to_char to_date to_timestamp to_number age make_interval make_date make_time
  make_timestamp make_timestamptz justify_days justify_hours justify_interval isfinite date_bin timezone
  to_json to_jsonb row_to_json array_to_json json_build_object jsonb_build_object json_build_array jsonb_build_array
  json_object jsonb_object json_array_elements jsonb_array_elements json_array_elements_text jsonb_array_elements_text
  json_array_length jsonb_array_length json_each jsonb_each json_each_text jsonb_each_text json_object_keys jsonb_object_keys
  json_extract_path jsonb_extract_path json_extract_path_text jsonb_extract_path_text json_typeof jsonb_typeof
  jsonb_strip_nulls json_strip_nulls jsonb_pretty jsonb_set jsonb_insert jsonb_path_query jsonb_path_query_array
  jsonb_path_query_first jsonb_path_exists jsonb_path_match json_populate_record jsonb_to_record jsonb_to_recordset
  array_length array_position array_positions array_append array_prepend array_cat array_remove array_replace unnest
  cardinality array_dims array_upper array_lower array_ndims generate_series
  similarity word_similarity strict_word_similarity show_trgm
  numeric decimal varchar timestamp timestamptz interval float`.split(/\s+/),
);

/** Functions the grammar itself writes as pg_catalog.name (EXTRACT(...), TRIM(...), AT TIME ZONE, ...). */
const SQL_SYNTAX_FUNCTIONS = new Set(
  'extract substring position btrim ltrim rtrim overlay timezone similar_to_escape like_escape date_part normalize is_normalized'.split(' '),
);

const ALLOWED_TYPES = new Set(
  `bool boolean int2 int4 int8 smallint integer int bigint numeric decimal float4 float8 real float text varchar bpchar char
  character date time timetz timestamp timestamptz interval json jsonb uuid`.split(/\s+/),
);

/** Parse-tree node types a read-only query is built from; anything else is refused. */
const ALLOWED_NODES = new Set(
  `SelectStmt ResTarget ColumnRef A_Star A_Const String Integer Float Boolean BitString List FuncCall NamedArgExpr TypeCast
  A_Expr BoolExpr NullTest BooleanTest SubLink CaseExpr CaseWhen CoalesceExpr MinMaxExpr NullIfExpr RangeVar JoinExpr
  RangeSubselect RangeFunction SortBy WindowDef CommonTableExpr A_Indirection A_Indices A_ArrayExpr RowExpr
  SQLValueFunction GroupingSet GroupingFunc ColumnDef CollateClause`.split(/\s+/),
);

/** Deepest parse tree (in JSON levels, about three per nested expression) the checker walks. */
const MAX_TREE_DEPTH = 1000;

/** Functions whose result can be longer than their input (see MAX_REPLACEMENT_CHARS). */
const GROWING_FUNCTIONS = new Set(['replace', 'regexp_replace']);

type Node = Record<string, unknown>;

/**
 * Checks an SQL-mode query. `offset` is where the SQL starts within the whole REM query, so that
 * positions in errors point into what the caller wrote.
 * @throws ForbiddenError for a refused statement, node or function, QuerySyntaxError for text
 * PostgreSQL cannot parse or a relation SQL mode does not have.
 */
export async function checkSqlQuery(sql: string, offset = 0, limits: SqlGuardLimits = DEFAULT_SQL_GUARD_LIMITS): Promise<void> {
  // The parser reads C strings: text after a NUL would not be what it checked.
  const nul = sql.indexOf('\0');
  if (nul >= 0) throw new QuerySyntaxError(`SQL mode does not accept NUL characters (position ${offset + nul})`, offset + nul, []);
  let tree: { stmts?: { stmt?: Node }[] };
  try {
    tree = (await parseSql(sql)) as typeof tree;
  } catch (error) {
    if (error instanceof SqlTreeTooDeepError) refuseDepth();
    if (!(error instanceof SqlParseError)) throw error;
    const at = offset + Math.max(0, error.cursorPosition);
    throw new QuerySyntaxError(`SQL syntax error: ${error.message} at position ${at}`, at, []);
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0) throw new QuerySyntaxError('Expected an SQL statement, found nothing', offset, ['SELECT', 'WITH']);
  if (stmts.length > 1) refuse('SQL mode runs one statement only');
  const [type] = Object.keys(stmts[0]!.stmt ?? {});
  if (type !== 'SelectStmt') {
    refuse(`SQL mode runs only SELECT queries (optionally starting with WITH); found ${statementName(type)}`);
  }
  new Checker(offset, limits).check(stmts[0]!.stmt!);
}

class Checker {
  private readonly cteNames = new Set<string>();
  private seriesRows = 1;

  constructor(
    private readonly offset: number,
    private readonly limits: SqlGuardLimits,
  ) {}

  check(root: Node): void {
    collectCteNames(root, this.cteNames);
    this.walk(root, false);
  }

  /** `grown`: the value being built already went through a growing function. */
  private walk(value: unknown, grown: boolean): void {
    if (Array.isArray(value)) {
      for (const item of value) this.walk(item, grown);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Node;
    const keys = Object.keys(node);
    // A wrapped node is { TypeName: {...fields} }; fields typed as one struct are inlined unwrapped.
    if (keys.length === 1 && /^[A-Z]/.test(keys[0]!)) {
      const type = keys[0]!;
      const body = node[type] as Node;
      if (!ALLOWED_NODES.has(type)) {
        if (type === 'ParamRef') this.refuseAt('Parameters ($1, ...) are not allowed in SQL mode', body);
        this.refuseAt(`SQL mode does not allow ${statementName(type)}`, body);
      }
      if (type === 'FuncCall') return this.funcCall(body, grown);
      if (type === 'RangeVar') this.rangeVar(body);
      if (type === 'A_Expr') this.operator(body);
      this.walk(body, grown);
      return;
    }
    this.fields(node);
    for (const key of keys) this.walk(node[key], grown);
  }

  /** Checks that apply to a field wherever its node is (union arms, for one, are inlined). */
  private fields(node: Node): void {
    if (node.intoClause) this.refuseAt('SQL mode is read-only: SELECT INTO (it creates a table) is not allowed', node.intoClause as Node);
    if (Array.isArray(node.lockingClause) && node.lockingClause.length > 0) {
      this.refuseAt('SQL mode is read-only: locking clauses (FOR UPDATE, FOR SHARE, ...) are not allowed', node);
    }
    const withClause = node.withClause as Node | undefined;
    if (withClause?.recursive) {
      this.refuseAt('SQL mode does not allow recursive CTEs (WITH RECURSIVE); TRAVERSE walks the graph, bounded', withClause);
    }
    const typeName = node.typeName as { names?: unknown[]; location?: number } | undefined;
    if (typeName) {
      const names = stringsOf(typeName.names);
      const name = names.length === 2 && names[0] === 'pg_catalog' ? names[1]! : names.length === 1 ? names[0]! : names.join('.');
      if (!ALLOWED_TYPES.has(name)) this.refuseAt(`SQL mode does not allow the type ${name}; allowed are plain scalar, date, JSON and text types`, typeName);
    }
  }

  private funcCall(call: Node, grown: boolean): void {
    const names = stringsOf(call.funcname);
    const qualified = names.length > 1;
    const name = names.at(-1)!;
    if (qualified && !(names.length === 2 && names[0] === 'pg_catalog' && SQL_SYNTAX_FUNCTIONS.has(name))) {
      this.refuseAt(`SQL mode does not allow schema-qualified function calls (${names.join('.')})`, call);
    }
    if (!qualified && !ALLOWED_FUNCTIONS.has(name)) {
      this.refuseAt(`SQL mode does not allow the function ${name}(); allowed are aggregates, string, date, JSON, array and trigram functions`, call);
    }
    const args = Array.isArray(call.args) ? (call.args as unknown[]) : [];
    if (name === 'generate_series') this.series(call, args);
    if (name === 'lpad' || name === 'rpad') {
      const length = integerConstant(args[1]);
      if (length === undefined || length > MAX_PADDED_CHARS) {
        this.refuseAt(`${name}() needs a constant length of at most ${MAX_PADDED_CHARS} in SQL mode`, call);
      }
    }
    let grows = false;
    if (GROWING_FUNCTIONS.has(name)) {
      const replacement = stringConstant(args[2]);
      if (replacement === undefined || replacement.length > MAX_REPLACEMENT_CHARS) {
        this.refuseAt(`${name}() needs a constant replacement of at most ${MAX_REPLACEMENT_CHARS} characters in SQL mode`, call);
      }
      const pattern = stringConstant(args[1]);
      grows = name === 'regexp_replace' ? replacement!.length > 0 : pattern === undefined || replacement!.length > pattern.length;
      if (grows && grown) this.refuseAt(`SQL mode does not allow ${name}() over a value another replacement already lengthened`, call);
    }
    const { args: _args, ...rest } = call;
    this.walk(rest, grown);
    args.forEach((arg, i) => this.walk(arg, grown || (grows && i === 0)));
  }

  private series(call: Node, args: unknown[]): void {
    const [start, stop, step = 1] = args.map(integerConstant);
    if (args.length < 2 || args.length > 3 || start === undefined || stop === undefined || step === undefined || step === 0) {
      this.refuseAt('generate_series() needs integer constants (start, stop and an optional non-zero step) in SQL mode', call);
    }
    const rows = Math.max(0, Math.floor((stop! - start!) / step!) + 1);
    this.seriesRows *= Math.max(rows, 1);
    if (this.seriesRows > this.limits.maxSeriesRows) {
      this.refuseAt(`generate_series() may produce at most ${this.limits.maxSeriesRows} rows per query in SQL mode (all series together)`, call);
    }
  }

  private rangeVar(range: Node): void {
    const schema = range.schemaname as string | undefined;
    const name = range.relname as string;
    const tables = REM_SQL_TABLES.join(', ');
    if (range.catalogname || (schema !== undefined && schema !== REM_SQL_SCHEMA)) {
      this.refuseAt(`SQL mode reads only the REM tables (${tables}); "${[range.catalogname, schema, name].filter(Boolean).join('.')}" is not allowed`, range);
    }
    if (name.startsWith('pg_')) this.refuseAt(`SQL mode reads only the REM tables (${tables}); "${name}" is not allowed`, range);
    if (!(REM_SQL_TABLES as readonly string[]).includes(name) && (schema !== undefined || !this.cteNames.has(name))) {
      const at = this.position(range);
      throw new QuerySyntaxError(`relation "${name}" does not exist at position ${at}; SQL mode can read ${tables}`, at, [...REM_SQL_TABLES]);
    }
  }

  private operator(expr: Node): void {
    const names = stringsOf(expr.name);
    if (names.length > 1) this.refuseAt(`SQL mode does not allow schema-qualified operators (OPERATOR(${names.join('.')}))`, expr);
  }

  private position(node: unknown): number {
    const location = (node as { location?: number } | undefined)?.location;
    return this.offset + (typeof location === 'number' && location >= 0 ? location : 0);
  }

  private refuseAt(message: string, node: unknown): never {
    refuse(`${message} (position ${this.position(node)})`);
  }
}

function refuse(message: string): never {
  throw new ForbiddenError(message);
}

/** "DeleteStmt" -> "DELETE", "CreateTableAsStmt" -> "CREATE TABLE AS", "XmlExpr" -> "XmlExpr". */
function statementName(type: string | undefined): string {
  if (!type) return 'nothing';
  if (!type.endsWith('Stmt')) return type;
  return type
    .slice(0, -4)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

function refuseDepth(): never {
  refuse(`SQL mode does not allow expressions nested this deeply (more than ${MAX_TREE_DEPTH} levels of the parse tree)`);
}

/** Also bounds the tree's depth, which keeps the checker's recursion far from the stack's limit. */
function collectCteNames(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > MAX_TREE_DEPTH) refuseDepth();
  if (Array.isArray(value)) return value.forEach((item) => collectCteNames(item, into, depth + 1));
  if (typeof value !== 'object' || value === null) return;
  const node = value as Node;
  const cte = node.CommonTableExpr as { ctename?: string } | undefined;
  if (cte?.ctename) into.add(cte.ctename);
  for (const key of Object.keys(node)) collectCteNames(node[key], into, depth + 1);
}

function stringsOf(list: unknown): string[] {
  return Array.isArray(list) ? list.map((item) => String((item as { String?: { sval?: string } }).String?.sval ?? '')) : [];
}

/** The value of an integer literal (0 is stored as an empty ival). */
function integerConstant(node: unknown): number | undefined {
  const constant = (node as { A_Const?: { ival?: { ival?: number } } } | undefined)?.A_Const;
  if (!constant?.ival) return undefined;
  return constant.ival.ival ?? 0;
}

function stringConstant(node: unknown): string | undefined {
  const constant = (node as { A_Const?: { sval?: { sval?: string } } } | undefined)?.A_Const;
  if (!constant?.sval) return undefined;
  return constant.sval.sval ?? '';
}
