/**
 * Reading YAML documents whose problems are reported where they are: every issue carries the
 * field path and the 1-based line and column of the offending node (agent files, routing.yaml).
 */
import { LineCounter, isAlias, isMap, isNode, isScalar, isSeq, parseDocument, type YAMLError } from 'yaml';
import type { Document } from 'yaml';
import type { z } from 'zod';
import { ValidationError, type FieldIssue } from '../errors.js';

export type Path = (string | number)[];
type Position = { line?: number; column?: number };
/** Where the node at `path` starts (its key's position when `atKey`). */
export type Locate = (path: Path, atKey?: boolean) => Position;

export interface LocatedDocument {
  doc: Document;
  lineCounter: LineCounter;
  locate: Locate;
}

/** Parses one YAML document; syntax errors become located issues (thrown as `what`'s ValidationError). */
export function parseLocated(source: string, what: string, multipleDocsMessage: string): LocatedDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    failLocated(
      what,
      doc.errors.map((error) => ({
        path: [],
        message: syntaxMessage(error, multipleDocsMessage),
        ...position(lineCounter, error.pos[0]),
      })),
    );
  }
  return { doc, lineCounter, locate: locator(doc, lineCounter) };
}

function syntaxMessage(error: YAMLError, multipleDocsMessage: string): string {
  if (error.code === 'MULTIPLE_DOCS') return multipleDocsMessage;
  // The parser gives up on deep nesting by running out of stack; say what the input did wrong.
  if (/call stack/i.test(error.message)) return 'YAML syntax: collections are nested too deeply';
  return `YAML syntax: ${error.message}`;
}

/** zod messages for people editing YAML ("must be a list, not text "x""). */
export const friendlyMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${expectedText(issue.expected)}, not ${describeValue(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item(s)`;
      return `must be ${issue.inclusive === false ? '>' : '>='} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array') return undefined;
      return `must be ${issue.inclusive === false ? '<' : '<='} ${issue.maximum}`;
    case 'invalid_value':
      return `must be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
    default:
      return undefined;
  }
};

function expectedText(expected: string): string {
  const names: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    array: 'a list',
    object: 'a mapping',
    record: 'a mapping',
  };
  return names[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `text ${JSON.stringify(value)}`;
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return `${typeof value} ${String(value)}`;
}

/** zod issues as located field issues; `unknownKey` words the message for an unrecognised key. */
export function locatedZodIssues(
  error: z.ZodError,
  locate: Locate,
  unknownKey: (parent: Path, key: string) => string = (_p, key) => `unknown key "${key}"`,
): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const keyPath = [...path, key];
        return { path: keyPath, message: unknownKey(path, key), ...locate(keyPath, true) };
      });
    }
    return [{ path, message: issue.message, ...locate(path) }];
  });
}

function locator(doc: Document, lineCounter: LineCounter): Locate {
  return (path, atKey = false) => {
    let node: unknown = doc.contents;
    let offset = rangeStart(node);
    for (const [index, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (!pair) break;
        const keyStart = rangeStart(pair.key);
        if (atKey && index === path.length - 1) {
          offset = keyStart ?? offset;
          break;
        }
        node = pair.value;
        offset = rangeStart(pair.value) ?? keyStart ?? offset;
      } else if (isSeq(node)) {
        const item: unknown = node.items[Number(segment)];
        if (item === undefined) break;
        node = item;
        offset = rangeStart(item) ?? offset;
      } else {
        break;
      }
    }
    return offset === undefined ? {} : position(lineCounter, offset);
  };
}

function rangeStart(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}

function position(lineCounter: LineCounter, offset: number): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Throws one ValidationError ("Invalid <what>: <first issue> (and n more)") with every issue, in document order. */
export function failLocated(what: string, issues: FieldIssue[]): never {
  const sorted = [...issues].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0));
  const [first] = sorted;
  const more = sorted.length > 1 ? ` (and ${sorted.length - 1} more)` : '';
  throw new ValidationError(`Invalid ${what}: ${first ? describeIssue(first) : 'unknown problem'}${more}`, sorted);
}

function describeIssue(issue: FieldIssue): string {
  const where = issue.line === undefined ? '' : ` (line ${issue.line}, column ${issue.column ?? 1})`;
  const path = formatPath(issue.path);
  return `${path ? `${path}: ` : ''}${issue.message}${where}`;
}

function formatPath(path: Path): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment), '');
}
