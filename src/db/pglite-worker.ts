/**
 * Worker-thread entry that holds the embedded database (see pglite-thread.ts): it executes
 * PostgreSQL wire-protocol messages and answers with the raw response bytes, so that a long
 * statement blocks this thread, never the server's. A parameterised statement is run here whole
 * (its parameters are serialised once PostgreSQL has said their types), so that it costs the server
 * one message each way instead of one per protocol step.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { messages, parse, protocol, type PGlite } from '@electric-sql/pglite';
import { openPglite } from './pglite.js';

export type WorkerCall =
  | { kind: 'protocol'; message: Uint8Array }
  | { kind: 'statement'; text: string; params: unknown[]; paramTypes?: number[] }
  | { kind: 'close' };
export type WorkerRequest = WorkerCall & { id: number };
export type WorkerReply = { id: number; data?: Uint8Array; error?: string } | { ready: true } | { failed: string };

const { serialize } = protocol;

/**
 * PGlite's extended-query sequence (Parse, Describe, Bind, Describe, Execute, Sync) in two steps
 * of this thread; the answer (a new buffer) holds every response the caller parses, errors included (after an
 * error PostgreSQL skips the remaining messages up to Sync).
 */
async function runStatement(db: PGlite, { text, params, paramTypes }: Extract<WorkerCall, { kind: 'statement' }>): Promise<Uint8Array> {
  const described = await execute(db, serialize.parse({ text, types: paramTypes }), serialize.describe({ type: 'S' }));
  const answers = parseMessages(described);
  if (answers.some((message) => message instanceof messages.DatabaseError)) {
    return concat([described, await execute(db, serialize.sync())]);
  }
  const types = parse.parseDescribeStatementResults(answers);
  let values: (string | null)[];
  try {
    values = params.map((value, i) => {
      if (value == null) return null;
      const serializer = db.serializers[types[i]!];
      return serializer ? serializer(value) : String(value);
    });
  } catch (error) {
    await execute(db, serialize.sync());
    throw error;
  }
  return concat([await execute(db, serialize.bind({ values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync())]);
}

function execute(db: PGlite, ...parts: Uint8Array[]): Promise<Uint8Array> {
  return db.execProtocolRaw(concat(parts), { syncToFs: false });
}

function parseMessages(data: Uint8Array): messages.BackendMessage[] {
  const result: messages.BackendMessage[] = [];
  new protocol.Parser().parse(data, (message) => result.push(message));
  return result;
}

/** One new buffer (also a copy: PGlite may answer with a view of its reusable buffer). */
function concat(parts: Uint8Array[]): Uint8Array {
  const result = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}

const port = parentPort!;
try {
  const db = await openPglite((workerData as { dataDir: string }).dataDir);
  port.on('message', async (request: WorkerRequest) => {
    try {
      if (request.kind === 'close') {
        await db.close();
        port.postMessage({ id: request.id } satisfies WorkerReply);
        return;
      }
      const data = request.kind === 'protocol' ? concat([await execute(db, request.message)]) : await runStatement(db, request);
      port.postMessage({ id: request.id, data } satisfies WorkerReply, [data.buffer as ArrayBuffer]);
    } catch (error) {
      port.postMessage({ id: request.id, error: (error as Error).message } satisfies WorkerReply);
    }
  });
  port.postMessage({ ready: true } satisfies WorkerReply);
} catch (error) {
  port.postMessage({ failed: (error as Error).message } satisfies WorkerReply);
}
