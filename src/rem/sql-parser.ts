import { Worker } from 'node:worker_threads';
import { workerEntry } from '../worker-script.js';
import type { ParseReply, ParseRequest } from './sql-parser-worker.js';

/** Text PostgreSQL's parser refused: its message, and where (0-based, in the text parsed). */
export class SqlParseError extends Error {
  constructor(
    message: string,
    readonly cursorPosition: number,
  ) {
    super(message);
    this.name = 'SqlParseError';
  }
}

/** A parse tree nested too deeply to reach this thread (far deeper than any query SQL mode accepts). */
export class SqlTreeTooDeepError extends Error {
  constructor() {
    super('The parse tree is nested too deeply to copy');
    this.name = 'SqlTreeTooDeepError';
  }
}

const entry = workerEntry('sql-parser-worker', import.meta.url);

interface Pending {
  resolve(tree: unknown): void;
  reject(error: Error): void;
}

/**
 * The parser's thread, started on the first SQL-mode query (its WebAssembly costs a process ~17 MB
 * resident, and most never see one). It holds the process open only while a parse is waiting.
 */
let parser: { worker: Worker; pending: Map<number, Pending> } | undefined;
let nextId = 1;

/** The parse tree of `sql` as libpg-query's parseSync gives it, parsed off this thread. @throws SqlParseError, SqlTreeTooDeepError */
export function parseSql(sql: string): Promise<unknown> {
  const { worker, pending } = (parser ??= start());
  const id = nextId++;
  if (pending.size === 0) worker.ref();
  const parsed = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
  worker.postMessage({ id, sql } satisfies ParseRequest);
  return parsed;
}

/** The tree a reply carries. @throws SqlParseError, SqlTreeTooDeepError (also when JSON.parse, which recurses, overflows this thread's stack) */
function treeOf(reply: ParseReply): unknown {
  if ('error' in reply) throw new SqlParseError(reply.error.message, reply.error.cursorPosition);
  if ('tooDeep' in reply) throw new SqlTreeTooDeepError();
  try {
    return JSON.parse(reply.json);
  } catch {
    throw new SqlTreeTooDeepError();
  }
}

function start(): NonNullable<typeof parser> {
  const worker = new Worker(entry.script, { eval: entry.eval });
  const pending = new Map<number, Pending>();
  const started = { worker, pending };
  worker.unref();
  worker.on('message', (reply: ParseReply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    try {
      waiting?.resolve(treeOf(reply));
    } catch (error) {
      waiting?.reject(error as Error);
    }
  });
  const fail = (error: Error) => {
    // The next parse starts a new thread.
    if (parser === started) parser = undefined;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`SQL parser thread exited (code ${code})`)));
  return started;
}
