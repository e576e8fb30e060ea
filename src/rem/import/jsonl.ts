/**
 * JSONL sources of an import: files (or every *.jsonl of a directory, in name order) read line by
 * line, numbered 1, 2, ... across all of them, and the parsing of one line into a memory item.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ValidationError } from '../../errors.js';
import type { MemoryItemInput } from '../memory/inputs.js';

/** One line of a source: its number across the whole source, and where it is. */
interface SourceLine {
  line: number;
  text: string;
}

/** Lines numbered across a source; `lines(from)` skips those before `from` without parsing them. */
export interface ImportSource {
  /** What to call it in messages (a path, a file name). */
  name: string;
  /** Lines in the whole source (blank ones included), for progress. */
  total: number;
  lines(from: number): AsyncIterable<SourceLine>;
  /** Where line `n` is, e.g. `b.jsonl:12` (for a directory) or `12`. */
  where(line: number): string;
}

/** A source held in memory (an uploaded file). */
export function textSource(name: string, text: string): ImportSource {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return {
    name,
    total: all.length,
    async *lines(from: number) {
      for (let i = Math.max(from, 1); i <= all.length; i++) yield { line: i, text: all[i - 1]! };
    },
    where: (line) => `${line}`,
  };
}

/** A JSONL file, or every *.jsonl file of a directory in name order; throws ValidationError when there is none. */
export async function fileSource(path: string): Promise<ImportSource> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new ValidationError(`${path}: no such file or directory`, [{ path: ['path'], message: 'not found' }]);
  const files = info.isDirectory()
    ? (await readdir(path))
        .filter((name) => name.endsWith('.jsonl'))
        .sort()
        .map((name) => join(path, name))
    : [path];
  if (files.length === 0) throw new ValidationError(`${path}: no *.jsonl file in this directory`, [{ path: ['path'], message: 'no *.jsonl file' }]);
  const counts = await Promise.all(files.map(countLines));
  const starts = counts.map((_, i) => counts.slice(0, i).reduce((a, b) => a + b, 0));
  return {
    name: path,
    total: counts.reduce((a, b) => a + b, 0),
    async *lines(from: number) {
      for (const [i, file] of files.entries()) {
        if (starts[i]! + counts[i]! < from) continue;
        let line = starts[i]!;
        for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
          line += 1;
          if (line >= from) yield { line, text };
        }
      }
    },
    where(line: number) {
      if (!info.isDirectory()) return `${line}`;
      const i = starts.findLastIndex((start) => start < line);
      return `${line} (${files[i]!.slice(path.length).replace(/^\//, '')}:${line - starts[i]!})`;
    },
  };
}

/** Lines of a file as readline counts them: a last line without a newline counts too. */
async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    if (chunk.length) last = chunk[chunk.length - 1]!;
  }
  return last === 10 ? lines : lines + 1;
}

/** One line as an item of the `ingest` mutation's shape (dates as ISO strings); null for a blank line. */
export function parseLine(text: string, where: string): MemoryItemInput | null {
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw lineError(where, `not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw lineError(where, 'expected a JSON object with one of entity, resource or moment');
  const item = value as MemoryItemInput;
  if (item.moment && typeof item.moment === 'object') {
    item.moment = { ...item.moment, startsAt: toDate(item.moment.startsAt, where, 'startsAt'), endsAt: toDate(item.moment.endsAt, where, 'endsAt') };
  }
  return item;
}

function toDate(value: unknown, where: string, field: string): Date | null | undefined {
  if (value === undefined || value === null) return value;
  const date = typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw lineError(where, `moment.${field}: expected an ISO 8601 date-time`);
  return date;
}

/** A problem with one line: the message starts with `line <n>`. */
export function lineError(where: string, message: string, issuePath: (string | number)[] = []): ValidationError {
  return new ValidationError(`line ${where}: ${message}`, [{ path: ['line', ...issuePath], message, line: Number.parseInt(where, 10) }]);
}
