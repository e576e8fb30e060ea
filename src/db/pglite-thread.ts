/**
 * The embedded database in a worker thread. PGlite runs PostgreSQL on the thread that calls it and
 * cannot cancel a statement, so in-process a heavy query stalls every request (health checks
 * included) until it ends. Here the worker (pglite-worker.ts) only executes wire-protocol messages;
 * this side is a PGlite in every other respect (it extends PGlite's own base class and parses the
 * answers with PGlite's own parsers, errors included), so the Prisma adapter uses it unchanged.
 * `query`, `exec` and `transaction` are PGlite's, except that each statement is one message to the
 * worker and one back: the base class's would send each protocol step separately, and those
 * round trips between threads, not PostgreSQL, were most of the server's CPU per statement.
 *
 * A statement that overruns its watchdog (`interruptAfter`) is stopped by terminating the worker;
 * a new worker reopens the data directory, where every committed transaction is (PostgreSQL
 * recovers it from its write-ahead log, as after a crash). An in-memory database would not survive
 * that, so `memory://` is a private temporary directory here, removed on close (or, when its
 * process was killed, by the next process that opens one).
 */
import type { Worker } from 'node:worker_threads';
import { Mutex, PGlite, parse, protocol, messages, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { query as templateQuery } from '@electric-sql/pglite/template';
import { addArrayTypes, ARRAY_TYPES_SQL, type ArrayType } from './array-types.js';
import { spawnDatabase, spawnWorker, type OpeningWorker, type SpawnedDatabase } from './pglite-spawn.js';
import type { WorkerCall, WorkerReply, WorkerRequest } from './pglite-worker.js';
import { removeTemporaryDataDir } from './temporary-data-dir.js';

type BackendMessage = messages.BackendMessage;

/** What this class must provide to PGlite's base class (abstract there; the class is not exported). */
interface PGliteBase {
  readonly parsers: PGlite['parsers'];
  readonly serializers: PGlite['serializers'];
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string, options?: QueryOptions): Promise<Results[]>;
  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T>;
  _initArrayTypes(options?: { force?: boolean }): Promise<void>;
}
const BasePGlite = Object.getPrototypeOf(PGlite) as abstract new () => PGliteBase;
if (typeof BasePGlite.prototype?._initArrayTypes !== 'function') {
  throw new Error('This PGlite version has no base class to extend; pglite-thread.ts needs updating');
}

export interface Watchdog {
  disarm(): void;
  /** True once the time ran out and the work was stopped. */
  readonly fired: boolean;
}

/** The messages of an answer up to the first error, which is thrown (a DatabaseError) unless told otherwise. */
function parseAnswers(
  data: Uint8Array,
  { throwOnError = true, onNotice }: { throwOnError?: boolean; onNotice?: (notice: messages.NoticeMessage) => void } = {},
): BackendMessage[] {
  const results: BackendMessage[] = [];
  let failure: messages.DatabaseError | undefined;
  new protocol.Parser().parse(data, (msg) => {
    if (failure) return;
    if (msg instanceof messages.DatabaseError) {
      if (throwOnError) failure = msg;
    } else if (msg instanceof messages.NoticeMessage) onNotice?.(msg);
    results.push(msg);
  });
  if (failure) throw failure;
  return results;
}

/** Like PGlite, a DatabaseError carries the statement that failed, its parameters and options. */
function withStatement<T>(work: () => T, query: string, params: unknown[] | undefined, queryOptions: QueryOptions | undefined): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof messages.DatabaseError) Object.assign(error, { query, params, queryOptions });
    throw error;
  }
}

/** How a statement reaches the worker: its answer, the raw response messages. */
type Run = (request: WorkerCall) => Promise<Uint8Array>;

interface Pending {
  resolve(reply: { data?: Uint8Array }): void;
  reject(error: Error): void;
}

export class PGliteThread extends BasePGlite {
  readonly debug = 0;
  readonly #queryMutex = new Mutex();
  readonly #transactionMutex = new Mutex();
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #worker!: Worker;
  #ready!: Promise<void>;
  #closed = false;
  /** The current worker answers messages (it opened the database and has not exited). */
  #alive = false;

  private constructor(
    readonly dataDir: string,
    private readonly temporary: boolean,
    private readonly template: string | undefined,
  ) {
    super();
  }

  /** Opens the database in a new worker thread; a new directory starts as a copy of `template` (pglite.ts). */
  static async open(dataDir: string, template?: string): Promise<PGliteThread> {
    const db = PGliteThread.adopt(await spawnDatabase(dataDir, template));
    try {
      await db.opened();
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  }

  /**
   * The client of a database whose worker is opening it (pglite-spawn.ts), at once: statements
   * sent meanwhile wait for it (so that the start-up's first ones need not wait for their sender
   * to learn that it opened). Await `opened()`, and `close()` when it rejects.
   */
  static adopt({ dataDir, temporary, template, opening }: SpawnedDatabase): PGliteThread {
    const db = new PGliteThread(dataDir, temporary, template);
    db.#start(opening);
    return db;
  }

  /** Resolves once the worker has opened the database; rejects with why it could not. */
  opened(): Promise<void> {
    return this.#ready;
  }

  /** The array types arrive with the worker's `ready` (#start); `force` (refreshArrayTypes) reads them again. */
  override async _initArrayTypes({ force = false }: { force?: boolean } = {}): Promise<void> {
    if (force) addArrayTypes(this, (await this.query<ArrayType>(ARRAY_TYPES_SQL)).rows);
  }

  interruptAfter(ms: number, error: () => Error): Watchdog {
    const watchdog = { fired: false, disarm: () => clearTimeout(timer) };
    const worker = this.#worker;
    const timer = setTimeout(() => {
      if (this.#worker !== worker || this.#closed) return;
      watchdog.fired = true;
      this.#restart(error());
    }, ms);
    timer.unref();
    return watchdog;
  }

  async execProtocolRaw(message: Uint8Array): Promise<Uint8Array> {
    return (await this.#call({ kind: 'protocol', message })).data!;
  }

  /** Like PGlite's: the parsed messages up to the first error, which is thrown (a DatabaseError). */
  async execProtocol(
    message: Uint8Array,
    options: { throwOnError?: boolean; onNotice?: (notice: messages.NoticeMessage) => void } = {},
  ): Promise<{ messages: BackendMessage[]; data: Uint8Array }> {
    const data = await this.execProtocolRaw(message);
    return { messages: parseAnswers(data, options), data };
  }

  /** A statement outside a transaction: it does not wait for the answers to those sent before it (see #alone). */
  override async query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#statement<T>(text, params, options, (request) => this.#alone(request));
  }

  override async exec(sql: string, options?: QueryOptions): Promise<Results[]> {
    return this.#simpleQuery(sql, options, (message) => this.#alone(message));
  }

  /** PGlite's transaction: BEGIN, the callback's statements, then COMMIT, or ROLLBACK when it throws. */
  override async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    await this._checkReady();
    return this._runExclusiveTransaction(async () => {
      await this.#exec('BEGIN');
      let closed = false;
      const open = () => {
        if (closed) throw new Error('Transaction is closed');
      };
      const tx: Transaction = {
        query: async (text, params, options) => {
          open();
          return this.#query(text, params, options);
        },
        sql: async (strings, ...values) => {
          open();
          const { query, params } = templateQuery(strings, ...values);
          return this.#query(query, params);
        },
        exec: async (sql, options) => {
          open();
          return this.#exec(sql, options);
        },
        rollback: async () => {
          open();
          await this.#exec('ROLLBACK');
          closed = true;
        },
        listen: () => this.listen(),
        get closed() {
          return closed;
        },
      };
      try {
        const result = await callback(tx);
        if (!closed) {
          closed = true;
          await this.#exec('COMMIT');
        }
        return result;
      } catch (error) {
        if (!closed) {
          closed = true;
          await this.#exec('ROLLBACK');
        }
        throw error;
      }
    });
  }

  /** A statement of the transaction in progress: the callback's statements run one after another. */
  #query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this._runExclusiveQuery(() => this.#statement<T>(text, params, options, this.#inTransaction));
  }

  #exec(sql: string, options?: QueryOptions): Promise<Results[]> {
    return this._runExclusiveQuery(() => this.#simpleQuery(sql, options, this.#inTransaction));
  }

  readonly #inTransaction: Run = async (request) => (await this.#call(request)).data!;

  /** One statement with parameters: the worker runs the whole extended-query sequence. */
  async #statement<T>(text: string, params: unknown[] = [], options: QueryOptions | undefined, run: Run): Promise<Results<T>> {
    if (options?.serializers || options?.blob) throw new Error('PGliteThread does not support per-query serializers or /dev/blob');
    const data = await run({ kind: 'statement', text, params, paramTypes: options?.paramTypes });
    const answers = withStatement(() => parseAnswers(data, options), text, params, options);
    return parse.parseResults(answers, this.parsers, options)[0] as Results<T>;
  }

  /** SQL without parameters (several statements allowed), as a simple query followed by Sync. */
  async #simpleQuery(sql: string, options: QueryOptions | undefined, run: Run): Promise<Results[]> {
    const query = protocol.serialize.query(sql);
    const sync = protocol.serialize.sync();
    const message = new Uint8Array(query.length + sync.length);
    message.set(query);
    message.set(sync, query.length);
    const data = await run({ kind: 'protocol', message });
    const answers = withStatement(() => parseAnswers(data, options), sql, undefined, options);
    return parse.parseResults(answers, this.parsers, options);
  }

  /**
   * Sends a statement that is not part of a transaction as soon as those sent before it have been,
   * without waiting for their answers: the worker runs them in the order sent, back to back, and no
   * longer idles while this thread, busy elsewhere, has yet to read the last answer and send the next
   * statement. A transaction holds the turn until it ends, so nothing else runs between its statements.
   */
  async #alone(request: WorkerCall): Promise<Uint8Array> {
    const { answer } = await this._runExclusiveTransaction(async () => {
      await this._checkReady();
      // Wrapped, or runExclusive would wait for the answer before letting the next statement go.
      return { answer: this.#send(request) };
    });
    return (await answer).data!;
  }

  async execProtocolStream(message: Uint8Array, options?: { throwOnError?: boolean }): Promise<BackendMessage[]> {
    return (await this.execProtocol(message, options)).messages;
  }

  async execProtocolRawStream(message: Uint8Array, { onRawData }: { onRawData: (data: Uint8Array) => void }): Promise<void> {
    onRawData(await this.execProtocolRaw(message));
  }

  /** The worker's file system (a data directory, NodeFS) writes through: nothing to sync. */
  async syncToFs(): Promise<void> {}

  async _handleBlob(blob?: Blob): Promise<void> {
    if (blob) throw new Error('PGliteThread does not support /dev/blob');
  }

  async _getWrittenBlob(): Promise<undefined> {
    return undefined;
  }

  async _cleanupBlob(): Promise<void> {}

  async _checkReady(): Promise<void> {
    if (this.#closed) throw new Error('PGlite is closed');
    await this.#ready;
  }

  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queryMutex.runExclusive(fn);
  }

  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactionMutex.runExclusive(fn);
  }

  async listen(): Promise<never> {
    throw new Error('PGliteThread does not support LISTEN');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ready.catch(() => {});
    await this.#send({ kind: 'close' }).catch(() => {});
    await this.#worker.terminate();
    if (this.temporary) await removeTemporaryDataDir(this.dataDir);
  }

  #start({ worker, opened }: OpeningWorker = spawnWorker(this.dataDir, this.template)): void {
    this.#worker = worker;
    this.#ready = opened.then((arrayTypes) => {
      addArrayTypes(this, arrayTypes);
      this.#alive = this.#worker === worker;
    });
    worker.on('message', (reply: WorkerReply) => {
      if (!('id' in reply)) return; // `ready` or `failed`: `opened` says
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (reply.error !== undefined) pending?.reject(new Error(reply.error));
      else pending?.resolve(reply);
    });
    worker.on('error', (error) => {
      if (this.#worker !== worker) return;
      this.#alive = false;
      this.#failAll(error);
    });
    worker.on('exit', (code) => {
      if (this.#worker !== worker || this.#closed) return;
      const error = new Error(`PGlite worker exited (code ${code})`);
      // A worker that had opened the database and died (out of memory, say) is replaced; one
      // that could not open it is not retried in a loop: callers get the error.
      if (this.#alive) this.#restart(error);
      else this.#failAll(error);
    });
    // Failures reach callers through #call; this keeps an unawaited rejection from being unhandled.
    this.#ready.catch(() => {});
  }

  /** Stops the worker in the middle of whatever it runs and opens the database again in a new one. */
  #restart(reason: Error): void {
    this.#alive = false;
    this.#failAll(reason);
    // The new worker opens the directory only once the old one has let go of it.
    const restarted = this.#worker.terminate().then(() => {
      this.#start();
      return this.#ready;
    });
    this.#ready = restarted;
    restarted.catch(() => {});
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  async #call(request: WorkerCall): Promise<{ data?: Uint8Array }> {
    await this._checkReady();
    return this.#send(request);
  }

  #send(request: WorkerCall): Promise<{ data?: Uint8Array }> {
    if (!this.#alive) return Promise.reject(new Error('PGlite worker is not running'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ ...request, id } as WorkerRequest);
      } catch (error) {
        // A parameter the structured clone cannot copy (a function, say).
        this.#pending.delete(id);
        reject(error as Error);
      }
    });
  }
}
