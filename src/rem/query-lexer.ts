/**
 * Tokenizer of the REM query dialect (see parser.ts). Tokens are produced on demand, so that the
 * body of an SQL query is never tokenized.
 */
import { QuerySyntaxError } from '../errors.js';

const ESCAPES: Record<string, string> = { '"': '"', "'": "'", '\\': '\\', n: '\n', t: '\t' };

type TokenKind = 'word' | 'string' | 'number' | 'comma' | 'symbol' | 'end';

export interface Token {
  kind: TokenKind;
  /** Offset of the first character; for `end`, where the query (or its run of trailing semicolons) ends. */
  pos: number;
  end: number;
  /** Source text of the token. */
  raw: string;
  /** Decoded value of a string token; `raw` for the others. */
  value: string;
}

export const WHITESPACE = /\s*/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[-+]?(?:\d+(?:\.\d+)?|\.\d+)/y;
const NUMBER_TAIL = /[\w.]*/y;
const ONLY_SEMICOLONS = /[\s;]*$/y;

export class Lexer {
  private offset = 0;
  private peeked: Token | undefined;

  constructor(readonly src: string) {}

  peek(): Token {
    return (this.peeked ??= this.scan());
  }

  next(): Token {
    const token = this.peek();
    this.peeked = undefined;
    this.offset = token.end;
    return token;
  }

  private scan(): Token {
    const src = this.src;
    const start = skip(WHITESPACE, src, this.offset);
    const ch = src[start];
    if (ch === undefined) return this.token('end', start, start);
    if (ch === ';' && match(ONLY_SEMICOLONS, src, start)) return this.token('end', start, start);
    if (ch === '"' || ch === "'") return this.string(start, ch);
    if (ch === ',') return this.token('comma', start, start + 1);
    const word = skip(WORD, src, start);
    if (word > start) return this.token('word', start, word);
    const number = skip(NUMBER, src, start);
    if (number > start) {
      // "10abc" or "1.2.3" would otherwise split into a number and a confusing second token.
      const tail = skip(NUMBER_TAIL, src, number);
      if (tail > number) {
        const raw = src.slice(start, tail);
        const message = `Invalid number "${raw}" at position ${start}; expected a number such as 10 or 0.5`;
        fail(message, start, ['a number']);
      }
      return this.token('number', start, number);
    }
    return this.token('symbol', start, start + String.fromCodePoint(src.codePointAt(start)!).length);
  }

  private token(kind: TokenKind, pos: number, end: number): Token {
    const raw = this.src.slice(pos, end);
    return { kind, pos, end, raw, value: raw };
  }

  private string(start: number, quote: string): Token {
    const src = this.src;
    let value = '';
    let i = start + 1;
    while (i < src.length) {
      const ch = src[i]!;
      if (ch === quote) {
        return { kind: 'string', pos: start, end: i + 1, raw: src.slice(start, i + 1), value };
      }
      if (ch !== '\\') {
        value += ch;
        i += 1;
        continue;
      }
      const escaped = src.codePointAt(i + 1);
      if (escaped === undefined) break;
      const replacement = ESCAPES[String.fromCodePoint(escaped)];
      if (replacement === undefined) {
        const found = `\\${String.fromCodePoint(escaped)}`;
        fail(`Unknown escape "${found}" at position ${i}; expected \\", \\', \\\\, \\n or \\t`, i, ['\\"', "\\'", '\\\\', '\\n', '\\t']);
      }
      value += replacement;
      i += 2;
    }
    fail(`Unterminated string starting at position ${start}; expected a closing ${quote}`, start, [`closing ${quote}`]);
  }
}

export function skip(pattern: RegExp, src: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.test(src) ? pattern.lastIndex : from;
}

function match(pattern: RegExp, src: string, from: number): boolean {
  pattern.lastIndex = from;
  return pattern.test(src);
}

/** @throws QuerySyntaxError at the 0-based position, listing what would have been accepted there. */
export function fail(message: string, position: number, accepted: string[]): never {
  throw new QuerySyntaxError(message, position, accepted);
}

/** @throws QuerySyntaxError: `what` was expected (after `after`) where `found` is. */
export function expected(what: string, found: Token, accepted: string[], after?: string): never {
  const context = after === undefined ? '' : ` after ${after}`;
  fail(`Expected ${what}${context} at position ${found.pos}, found ${describe(found)}`, found.pos, accepted);
}

export function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of query';
    case 'string':
      return `string ${token.raw.length > 40 ? `${token.raw.slice(0, 37)}...` : token.raw}`;
    case 'number':
      return `number ${token.raw}`;
    default:
      return `"${token.raw}"`;
  }
}

export function list(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
