/**
 * Worker-thread entry that holds the embedded database (see pglite-thread.ts): it executes
 * PostgreSQL wire-protocol messages and answers with the raw response bytes, so that a long
 * statement blocks this thread, never the server's. A parameterised statement is run here whole
 * (its parameters are serialised once PostgreSQL has said their types), so that it costs the server
 * one message each way instead of one per protocol step. A statement that recurs is prepared once,
 * named (as node-postgres does on PostgreSQL): later runs skip parsing, describing and planning and
 * cost this thread one pass through PGlite instead of two.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { messages, parse, protocol, type PGlite } from '@electric-sql/pglite';
import { ARRAY_TYPES_SQL, type ArrayType } from './array-types.js';
import { openPglite } from './pglite.js';
import { SqlState } from './sql-state.js';
import { statementNames } from './statement-names.js';

export type WorkerCall =
  { kind: 'protocol'; message: Uint8Array } | { kind: 'statement'; text: string; params: unknown[]; paramTypes?: number[] } | { kind: 'close' };
export type WorkerRequest = WorkerCall & { id: number };
export type WorkerReply = { id: number; data?: Uint8Array; error?: string } | { ready: true; arrayTypes: ArrayType[] } | { failed: string };

const { serialize } = protocol;

/** A statement prepared under a name, with the parameter types PostgreSQL gave it. */
interface Prepared {
  name: string;
  types: number[];
}

const nameOf = statementNames();
const prepared = new Map<string, Prepared>();

/**
 * PGlite's extended-query sequence (Parse, Describe, Bind, Describe, Execute, Sync) in two steps
 * of this thread, or one (Bind, Describe, Execute, Sync) for a statement prepared before; the
 * answer (a new buffer) holds every response the caller parses, errors included (after an error
 * PostgreSQL skips the remaining messages up to Sync).
 */
async function runStatement(db: PGlite, call: Extract<WorkerCall, { kind: 'statement' }>): Promise<Uint8Array> {
  const key = call.paramTypes?.length ? `${call.paramTypes.join(',')};${call.text}` : call.text;
  const known = prepared.get(key);
  if (known) {
    const answer = await bindAndExecute(db, known, call.params);
    // Prepared before a schema change that altered its result, or dropped: prepare it again.
    const code = errorCode(answer);
    if (code !== SqlState.featureNotSupported && code !== SqlState.invalidSqlStatementName) return answer;
    prepared.delete(key);
    await execute(db, serialize.close({ type: 'S', name: known.name }), serialize.sync());
  }
  const name = known ? undefined : nameOf({ sql: key });
  const described = await execute(db, serialize.parse({ name, text: call.text, types: call.paramTypes }), serialize.describe({ type: 'S', name }));
  const answers = parseMessages(described);
  if (answers.some((message) => message instanceof messages.DatabaseError)) {
    return concat([described, await execute(db, serialize.sync())]);
  }
  const statement = { name: name ?? '', types: parse.parseDescribeStatementResults(answers) };
  if (name) prepared.set(key, statement);
  return bindAndExecute(db, statement, call.params);
}

async function bindAndExecute(db: PGlite, statement: Prepared, params: unknown[]): Promise<Uint8Array> {
  let values: (string | null)[];
  try {
    values = params.map((value, i) => {
      if (value == null) return null;
      const serializer = db.serializers[statement.types[i]!];
      return serializer ? serializer(value) : String(value);
    });
  } catch (error) {
    await execute(db, serialize.sync());
    throw error;
  }
  return execute(db, serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync());
}

/** The SQLSTATE of the first error in an answer, walking message headers only (type byte, length). */
function errorCode(data: Uint8Array): string | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let at = 0; at + 5 <= data.length; at += 1 + view.getInt32(at + 1)) {
    if (data[at] !== 0x45) continue; // 'E', ErrorResponse: fields of a type byte and a NUL-terminated text
    for (let field = at + 5; field < at + 1 + view.getInt32(at + 1) && data[field] !== 0;) {
      const end = data.indexOf(0, field + 1);
      if (data[field] === 0x43) return new TextDecoder().decode(data.subarray(field + 1, end)); // 'C', the code
      field = end + 1;
    }
    return undefined;
  }
  return undefined;
}

/**
 * PostgreSQL's answer to `parts`, in a new buffer. Through `execProtocolRawStream`, not
 * `execProtocolRaw`: PGlite 0.5's raw call also parses every answer into the result list of its
 * last `query()`, which nothing empties when only raw calls follow (the thread's heap grew by about
 * 5.5 KB a turn for its whole life, issue 41's soak), and that parse was this thread's work for
 * nothing: the server parses the bytes. The stream's callback stays PGlite's output hook until the
 * next call replaces it, so this thread must not mix in `query()` after its first statement.
 */
async function execute(db: PGlite, ...parts: Uint8Array[]): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  // A chunk is a view of PGlite's memory, reused by the next: copied.
  await db.execProtocolRawStream(concat(parts), { syncToFs: false, onRawData: (chunk) => chunks.push(chunk.slice()) });
  return chunks.length === 1 ? chunks[0]! : concat(chunks);
}

function parseMessages(data: Uint8Array): messages.BackendMessage[] {
  const result: messages.BackendMessage[] = [];
  new protocol.Parser().parse(data, (message) => result.push(message));
  return result;
}

/** The parts, one after the other, in one new buffer. */
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
  const { dataDir, template } = workerData as { dataDir: string; template?: string };
  const db = await openPglite(dataDir, template);
  const answer = async (request: WorkerRequest) => {
    try {
      if (request.kind === 'close') {
        await db.close();
        port.postMessage({ id: request.id } satisfies WorkerReply);
        return;
      }
      const data = request.kind === 'protocol' ? await execute(db, request.message) : await runStatement(db, request);
      port.postMessage({ id: request.id, data } satisfies WorkerReply, [data.buffer as ArrayBuffer]);
    } catch (error) {
      port.postMessage({ id: request.id, error: (error as Error).message } satisfies WorkerReply);
    }
  };
  // The server may send statements before earlier ones are answered (pglite-thread.ts): each runs
  // whole, in the order sent, since a statement's protocol steps must not interleave with another's.
  let queue = Promise.resolve();
  port.on('message', (request: WorkerRequest) => {
    queue = queue.then(() => answer(request));
  });
  // With the array types: the server's side parses rows from the first statement on, without a
  // round trip of its own for them after the database opened.
  const { rows: arrayTypes } = await db.query<ArrayType>(ARRAY_TYPES_SQL);
  port.postMessage({ ready: true, arrayTypes } satisfies WorkerReply);
} catch (error) {
  port.postMessage({ failed: (error as Error).message } satisfies WorkerReply);
}
