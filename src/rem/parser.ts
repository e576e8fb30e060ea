/**
 * Parser for the REM query dialect (design doc section 7):
 *
 *   LOOKUP "key" [, "key" ...]
 *   FUZZY "text" [THRESHOLD x] [LIMIT n]
 *   SEARCH "text" [FROM table] [WHERE condition [AND condition ...]] [LIMIT n] [MIN_SIMILARITY x]
 *   TRAVERSE FROM "key" [TYPE "rel"] [DEPTH n] [LIMIT n]
 *   SQL <statement>    (or a statement starting with SELECT / WITH)
 *
 * Keywords and table names are case-insensitive; clauses may appear in any order, each at most once.
 * Strings use double or single quotes with the escapes \" \' \\ \n \t. Several LOOKUP keys are
 * separated by commas. Trailing semicolons are ignored. Keys are normalised with normalizeKey.
 * SEARCH's WHERE conditions are described in search-filter.ts. The SQL body is passed through verbatim; checking that it is safe to run happens elsewhere.
 */
import { normalizeKey } from './keys.js';
import { parseSearchFilter, type SearchFilter } from './search-filter.js';
import { Lexer, WHITESPACE, describe, expected, fail, list, skip, type Token } from './query-lexer.js';

export const REM_MODES = ['LOOKUP', 'FUZZY', 'SEARCH', 'TRAVERSE', 'SQL'] as const;
export type RemQueryMode = (typeof REM_MODES)[number];

export const REM_TABLES = ['resources', 'entities', 'moments'] as const;
type RemTable = (typeof REM_TABLES)[number];

export interface LookupQuery {
  mode: 'LOOKUP';
  /** Normalised, de-duplicated, in the order given. */
  keys: string[];
}
export interface FuzzyQuery {
  mode: 'FUZZY';
  text: string;
  threshold: number;
  limit: number;
}
export interface SearchQuery {
  mode: 'SEARCH';
  text: string;
  /** Absent means every table. */
  table?: RemTable;
  limit: number;
  minSimilarity?: number;
  /** WHERE: conditions applied inside the vector query. */
  filter?: SearchFilter;
}
export interface TraverseQuery {
  mode: 'TRAVERSE';
  from: string;
  relType?: string;
  depth: number;
  limit: number;
}
export interface SqlQuery {
  mode: 'SQL';
  sql: string;
}
export type RemQuery = LookupQuery | FuzzyQuery | SearchQuery | TraverseQuery | SqlQuery;

export interface RemParseOptions {
  fuzzyThreshold: number;
  limit: number;
  maxLimit: number;
  maxDepth: number;
  /** Most keys of one LOOKUP. */
  maxKeys: number;
}

export const DEFAULT_REM_PARSE_OPTIONS: Readonly<RemParseOptions> = {
  fuzzyThreshold: 0.3,
  limit: 10,
  maxLimit: 100,
  maxDepth: 5,
  maxKeys: 100,
};

/** @throws QuerySyntaxError with the 0-based offset of the offending token. */
export function parseRemQuery(text: string, defaults: Partial<RemParseOptions> = {}): RemQuery {
  const d = DEFAULT_REM_PARSE_OPTIONS;
  const options: RemParseOptions = {
    fuzzyThreshold: defaults.fuzzyThreshold ?? d.fuzzyThreshold,
    limit: defaults.limit ?? d.limit,
    maxLimit: defaults.maxLimit ?? d.maxLimit,
    maxDepth: defaults.maxDepth ?? d.maxDepth,
    maxKeys: defaults.maxKeys ?? d.maxKeys,
  };
  return new Parser(text, options).parse();
}

// A Map, not an object literal, so that names such as "constructor" are not found on the prototype.
const TABLE_ALIASES = new Map<string, RemTable>([
  ['resources', 'resources'],
  ['resource', 'resources'],
  ['entities', 'entities'],
  ['entity', 'entities'],
  ['ontologies', 'entities'],
  ['ontology', 'entities'],
  ['moments', 'moments'],
  ['moment', 'moments'],
]);

type ClauseHandlers = Record<string, (keyword: Token) => void>;

class Parser {
  private readonly lexer: Lexer;

  constructor(
    private readonly src: string,
    private readonly options: RemParseOptions,
  ) {
    this.lexer = new Lexer(src);
  }

  parse(): RemQuery {
    const head = this.lexer.next();
    const keyword = head.kind === 'word' ? head.raw.toUpperCase() : '';
    switch (keyword) {
      case 'LOOKUP':
        return this.lookup();
      case 'FUZZY':
        return this.fuzzy();
      case 'SEARCH':
        return this.search();
      case 'TRAVERSE':
        return this.traverse();
      case 'SQL':
        return this.sql(head.end);
      case 'SELECT':
      case 'WITH':
        return this.sql(head.pos);
    }
    const modes = list([...REM_MODES]);
    if (head.kind === 'word') {
      fail(`Unknown query mode "${head.raw}" at position ${head.pos}; expected ${modes}`, head.pos, [...REM_MODES]);
    }
    return expected(modes, head, [...REM_MODES]);
  }

  private lookup(): LookupQuery {
    const keys = [this.key('LOOKUP')];
    while (this.lexer.peek().kind === 'comma') {
      const comma = this.lexer.next();
      if (keys.length === this.options.maxKeys)
        fail(`LOOKUP takes at most ${this.options.maxKeys} keys; the one at position ${comma.pos + 1} is one too many`, comma.pos, []);
      keys.push(this.key('","'));
    }
    this.end(['","']);
    return { mode: 'LOOKUP', keys: [...new Set(keys)] };
  }

  private fuzzy(): FuzzyQuery {
    const query: FuzzyQuery = {
      mode: 'FUZZY',
      text: this.text('FUZZY'),
      threshold: this.options.fuzzyThreshold,
      limit: this.options.limit,
    };
    this.clauses({
      THRESHOLD: () => (query.threshold = this.fraction('THRESHOLD')),
      LIMIT: () => (query.limit = this.positiveInt('LIMIT', this.options.maxLimit)),
    });
    return query;
  }

  private search(): SearchQuery {
    const query: SearchQuery = { mode: 'SEARCH', text: this.text('SEARCH'), limit: this.options.limit };
    this.clauses({
      FROM: () => (query.table = this.table()),
      WHERE: () => (query.filter = parseSearchFilter(this.lexer)),
      LIMIT: () => (query.limit = this.positiveInt('LIMIT', this.options.maxLimit)),
      MIN_SIMILARITY: () => (query.minSimilarity = this.fraction('MIN_SIMILARITY')),
    });
    return query;
  }

  private traverse(): TraverseQuery {
    let from: string | undefined;
    let relType: string | undefined;
    let depth = 1;
    let limit = this.options.limit;
    this.clauses({
      FROM: () => (from = this.key('FROM')),
      TYPE: () => (relType = this.relType()),
      DEPTH: () => (depth = this.positiveInt('DEPTH', this.options.maxDepth)),
      LIMIT: () => (limit = this.positiveInt('LIMIT', this.options.maxLimit)),
    });
    if (from === undefined) {
      const end = this.lexer.peek();
      const message = `Expected a FROM "key" clause in TRAVERSE at position ${end.pos}, found end of query`;
      fail(message, end.pos, ['FROM']);
    }
    return relType === undefined ? { mode: 'TRAVERSE', from, depth, limit } : { mode: 'TRAVERSE', from, relType, depth, limit };
  }

  private sql(bodyStart: number): SqlQuery {
    const src = this.src;
    let end = src.length;
    while (end > bodyStart && /[\s;]/.test(src[end - 1]!)) end -= 1;
    const start = skip(WHITESPACE, src, bodyStart);
    if (start >= end) {
      fail(`Expected an SQL statement after SQL at position ${start}, found end of query`, start, ['an SQL statement']);
    }
    return { mode: 'SQL', sql: src.slice(start, end) };
  }

  /** Parses optional keyword clauses in any order until the end of the query. */
  private clauses(handlers: ClauseHandlers): void {
    const seen = new Map<string, number>();
    for (;;) {
      const token = this.lexer.peek();
      if (token.kind === 'end') return;
      const name = token.kind === 'word' ? token.raw.toUpperCase() : '';
      const handler = handlers[name];
      const remaining = Object.keys(handlers).filter((clause) => !seen.has(clause));
      if (handler === undefined) {
        if (token.kind === 'word' && remaining.length > 0) {
          const message = `Unknown clause "${token.raw}" at position ${token.pos}; expected ${list(remaining)}`;
          fail(message, token.pos, remaining);
        }
        return this.unexpected(token, remaining);
      }
      const previous = seen.get(name);
      if (previous !== undefined) {
        const message = `Duplicate ${name} clause at position ${token.pos}; already given at position ${previous}`;
        fail(message, token.pos, [...remaining, 'end of query']);
      }
      seen.set(name, token.pos);
      handler(this.lexer.next());
    }
  }

  /** Requires the end of the query; `alternatives` are what else could have followed. */
  private end(alternatives: string[]): void {
    const token = this.lexer.peek();
    if (token.kind !== 'end') this.unexpected(token, alternatives);
  }

  private unexpected(token: Token, alternatives: string[]): never {
    const accepted = [...alternatives, 'end of query'];
    fail(`Unexpected ${describe(token)} at position ${token.pos}; expected ${list(accepted)}`, token.pos, accepted);
  }

  private quoted(after: string): Token {
    const token = this.lexer.next();
    if (token.kind !== 'string') expected('a quoted string', token, ['a quoted string'], after);
    return token;
  }

  private key(after: string): string {
    const token = this.quoted(after);
    const key = normalizeKey(token.value);
    if (key === '') expected('a key with letters or digits', token, ['a key with letters or digits']);
    return key;
  }

  private text(after: string): string {
    const token = this.quoted(after);
    const text = token.value.trim();
    if (text === '') expected('non-empty text', token, ['non-empty text'], after);
    return text;
  }

  private relType(): string {
    const token = this.quoted('TYPE');
    const relType = token.value.trim();
    if (relType === '') expected('a non-empty relation type', token, ['a non-empty relation type'], 'TYPE');
    return relType;
  }

  private table(): RemTable {
    const token = this.lexer.next();
    const tables = [...REM_TABLES];
    if (token.kind !== 'word' && token.kind !== 'string') expected('a table name', token, tables, 'FROM');
    const table = TABLE_ALIASES.get(token.value.trim().toLowerCase());
    if (table === undefined) {
      const message = `Unknown table ${JSON.stringify(token.value)} at position ${token.pos}; expected ${list(tables)}`;
      fail(message, token.pos, tables);
    }
    return table;
  }

  private fraction(clause: string): number {
    const token = this.lexer.next();
    const accepted = ['a number between 0 and 1'];
    if (token.kind !== 'number') expected('a number', token, accepted, clause);
    const value = Number(token.raw);
    if (value < 0 || value > 1) {
      fail(`${clause} must be between 0 and 1 at position ${token.pos}, found ${token.raw}`, token.pos, accepted);
    }
    return value;
  }

  private positiveInt(clause: string, max: number): number {
    const token = this.lexer.next();
    const accepted = [`an integer from 1 to ${max}`];
    if (token.kind !== 'number') expected('a positive integer', token, accepted, clause);
    const value = Number(token.raw);
    if (!Number.isInteger(value) || value < 1) {
      fail(`${clause} must be a positive integer at position ${token.pos}, found ${token.raw}`, token.pos, accepted);
    }
    if (value > max) {
      fail(`${clause} must be at most ${max} at position ${token.pos}, found ${token.raw}`, token.pos, accepted);
    }
    return value;
  }
}
