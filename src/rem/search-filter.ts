/**
 * The WHERE clause of SEARCH: conditions on the rows a vector search may return, joined by AND.
 *
 *   tags CONTAINS 'x'                    the row has tag x
 *   tags CONTAINS ALL ('x', 'y')         every one of them
 *   tags CONTAINS ANY ('x', 'y')         at least one of them
 *   type = 'x'   (or category = 'x')     entity_type, category or moment_type, by table
 *   metadata.k = 'v' | 2 | TRUE | FALSE  a top-level metadata field equals the value
 *   created_at > '2026-01-01'            also >=, <, <= and updated_at; ISO 8601 dates or times (UTC
 *                                        unless an offset is given)
 *
 * The filter travels to the database as one JSON parameter, never spliced into SQL text.
 */
import { Lexer, describe, expected, fail, list, type Token } from './query-lexer.js';

type TimeBound = `${'created' | 'updated'}_${'gt' | 'gte' | 'lt' | 'lte'}`;

export interface SearchFilter {
  /** The row has every one of these tags. */
  tagsAll?: string[];
  /** Each group: the row has at least one of its tags. */
  tagsAny?: string[][];
  /** The row's type column: entities.entity_type, resources.category, moments.moment_type. */
  type?: string;
  /** Top-level metadata fields the row's metadata contains with these values. */
  metadata?: Record<string, string | number | boolean>;
  /** Time bounds as ISO 8601 instants (UTC). */
  time?: Partial<Record<TimeBound, string>>;
  /** Set by code (document scopes), not by WHERE: chunks of these files, each `<user id or empty>:<key>`. */
  parents?: string[];
  /** Set by code (a corpus scope), not by WHERE: chunks of the documents in this corpus (its id). */
  corpus?: string;
  /** Set by code, not by WHERE: the row's content holds this text (case-insensitive). */
  contentContains?: string;
}

const FIELDS = ['tags', 'type', 'category', 'metadata.<key>', 'created_at', 'updated_at'];
const MAX_CONDITIONS = 20;
const MAX_TAGS = 50;
const MAX_TEXT = 500;
const BOUNDS: Record<string, 'gt' | 'gte' | 'lt' | 'lte'> = { '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' };
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/** Parses the conditions after WHERE (the keyword already read). @throws QuerySyntaxError */
export function parseSearchFilter(lexer: Lexer): SearchFilter {
  const filter: SearchFilter = {};
  const seen = new Map<string, number>();
  for (let count = 1; ; count++) {
    const field = lexer.next();
    if (count > MAX_CONDITIONS) fail(`WHERE takes at most ${MAX_CONDITIONS} conditions; the one at position ${field.pos} is one too many`, field.pos, []);
    condition(lexer, field, filter, seen);
    const next = lexer.peek();
    if (next.kind !== 'word' || next.raw.toUpperCase() !== 'AND') return filter;
    lexer.next();
  }
}

function condition(lexer: Lexer, field: Token, filter: SearchFilter, seen: Map<string, number>): void {
  const name = field.kind === 'word' ? field.raw.toLowerCase() : '';
  const once = (what: string) => {
    const previous = seen.get(what);
    if (previous !== undefined) fail(`Duplicate condition on ${what} at position ${field.pos}; already given at position ${previous}`, field.pos, []);
    seen.set(what, field.pos);
  };
  switch (name) {
    case 'tags':
      return tags(lexer, filter);
    case 'type':
    case 'category':
      once('type');
      operator(lexer, ['='], name);
      filter.type = text(lexer, name);
      return;
    case 'metadata': {
      const dot = lexer.next();
      if (dot.raw !== '.') expected('"." and a metadata key', dot, ['.'], 'metadata');
      const key = lexer.next();
      if ((key.kind !== 'word' && key.kind !== 'string') || key.value === '') expected('a metadata key', key, ['a metadata key'], 'metadata.');
      once(`metadata.${key.value}`);
      operator(lexer, ['='], `metadata.${key.value}`);
      (filter.metadata ??= {})[key.value] = scalar(lexer, `metadata.${key.value}`);
      return;
    }
    case 'created_at':
    case 'updated_at': {
      const op = operator(lexer, Object.keys(BOUNDS), name);
      const bound: TimeBound = `${name === 'created_at' ? 'created' : 'updated'}_${BOUNDS[op]!}`;
      once(`${name} ${op}`);
      (filter.time ??= {})[bound] = instant(lexer.next(), name);
      return;
    }
  }
  if (field.kind === 'word') fail(`Unknown filter field "${field.raw}" at position ${field.pos}; expected ${list(FIELDS)}`, field.pos, FIELDS);
  expected('a filter field', field, FIELDS, 'WHERE');
}

function tags(lexer: Lexer, filter: SearchFilter): void {
  const contains = lexer.next();
  if (contains.kind !== 'word' || contains.raw.toUpperCase() !== 'CONTAINS') expected('CONTAINS', contains, ['CONTAINS'], 'tags');
  const next = lexer.peek();
  const quantifier = next.kind === 'word' ? next.raw.toUpperCase() : '';
  if (quantifier === 'ANY' || quantifier === 'ALL') {
    lexer.next();
    const group = tagList(lexer, `CONTAINS ${quantifier}`);
    if (quantifier === 'ANY') (filter.tagsAny ??= []).push(group);
    else filter.tagsAll = [...new Set([...(filter.tagsAll ?? []), ...group])];
    return;
  }
  if (next.kind !== 'string') expected('a quoted tag, ANY (...) or ALL (...)', next, ['a quoted tag', 'ANY', 'ALL'], 'CONTAINS');
  filter.tagsAll = [...new Set([...(filter.tagsAll ?? []), text(lexer, 'CONTAINS')])];
}

function tagList(lexer: Lexer, after: string): string[] {
  const open = lexer.next();
  if (open.raw !== '(') expected('"(" and a list of quoted tags', open, ['('], after);
  const tags = [text(lexer, '(')];
  for (;;) {
    const token = lexer.next();
    if (token.raw === ')') return tags;
    if (token.kind !== 'comma') expected('"," or ")"', token, [',', ')'], 'a tag');
    if (tags.length === MAX_TAGS) fail(`A tag list takes at most ${MAX_TAGS} tags; the one at position ${token.pos + 1} is one too many`, token.pos, [')']);
    tags.push(text(lexer, ','));
  }
}

/** One of `accepted` (`>=` and `<=` are two adjacent symbols to the lexer). */
function operator(lexer: Lexer, accepted: string[], field: string): string {
  const token = lexer.next();
  let op = token.kind === 'symbol' ? token.raw : '';
  const follow = lexer.peek();
  if ((op === '>' || op === '<') && follow.raw === '=' && follow.pos === token.end) {
    lexer.next();
    op += '=';
  }
  if (!accepted.includes(op)) expected(list(accepted.map((a) => `"${a}"`)), token, accepted, field);
  return op;
}

function text(lexer: Lexer, after: string): string {
  const token = lexer.next();
  if (token.kind !== 'string') expected('a quoted string', token, ['a quoted string'], after);
  if (token.value.length > MAX_TEXT) fail(`A filter value is at most ${MAX_TEXT} characters; the one at position ${token.pos} is longer`, token.pos, []);
  return token.value;
}

function scalar(lexer: Lexer, field: string): string | number | boolean {
  const token = lexer.peek();
  if (token.kind === 'number') return Number(lexer.next().raw);
  const word = token.kind === 'word' ? token.raw.toUpperCase() : '';
  if (word === 'TRUE' || word === 'FALSE') {
    lexer.next();
    return word === 'TRUE';
  }
  if (token.kind !== 'string') expected('a quoted string, a number, TRUE or FALSE', token, ['a quoted string', 'a number', 'TRUE', 'FALSE'], `${field} =`);
  return text(lexer, `${field} =`);
}

/** An ISO 8601 date or date-time as a UTC instant; dates without an offset are UTC. */
function instant(token: Token, field: string): string {
  const accepted = ["a date such as '2026-01-31' or '2026-01-31T12:00:00Z'"];
  if (token.kind !== 'string') expected('a quoted date', token, accepted, field);
  const m = ISO_TIME.exec(token.value.trim());
  const bad = () => fail(`Invalid date ${describe(token)} at position ${token.pos}; expected ${accepted[0]}`, token.pos, accepted);
  if (!m) return bad();
  const [, year, month, day, hour = '00', minute = '00', second = '00', zone] = m;
  const utc = new Date(Date.UTC(+year!, +month! - 1, +day!));
  const real = utc.getUTCFullYear() === +year! && utc.getUTCMonth() === +month! - 1 && utc.getUTCDate() === +day!;
  if (!real || +hour > 23 || +minute > 59 || +second > 59) return bad();
  const iso = token.value.trim().replace(' ', 'T');
  const at = new Date(m[4] === undefined ? `${iso}T00:00:00Z` : zone ? iso : `${iso}Z`);
  return Number.isNaN(at.getTime()) ? bad() : at.toISOString();
}

/** A WHERE clause on its own (without the keyword), as the MCP search tool takes it. @throws QuerySyntaxError */
export function parseSearchWhere(text: string): SearchFilter {
  const lexer = new Lexer(text);
  const filter = parseSearchFilter(lexer);
  const end = lexer.peek();
  if (end.kind !== 'end') expected('AND or the end of the conditions', end, ['AND', 'end of query']);
  return filter;
}
