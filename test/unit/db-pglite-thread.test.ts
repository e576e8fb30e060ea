import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messages } from '@electric-sql/pglite';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PGliteThread } from '../../src/db/pglite-thread.js';
import { tempDataDir } from '../support/server.js';

describe('PGlite in a worker thread', () => {
  let db: PGliteThread;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await tempDataDir();
    db = await PGliteThread.open(dataDir);
    await db.exec('CREATE TABLE items (id int PRIMARY KEY, name text)');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('answers like PGlite: typed rows, parameters, errors with their SQLSTATE', async () => {
    await db.query('INSERT INTO items VALUES ($1, $2)', [1, 'one']);
    expect((await db.query<{ id: number; name: string; tags: string[] }>("SELECT id, name, ARRAY['a','b'] AS tags FROM items")).rows).toEqual([
      { id: 1, name: 'one', tags: ['a', 'b'] },
    ]);
    const duplicate = await db.query('INSERT INTO items VALUES (1, $1)', ['again']).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(messages.DatabaseError);
    expect(duplicate).toMatchObject({ code: '23505' });
  });

  it('runs transactions one at a time and rolls a failed one back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES (2, 'two')");
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await db.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }]);
  });

  it('sends each statement to the worker in one message: query, exec, and each step of a transaction', async () => {
    const sent = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      await db.query('SELECT $1::int AS n', [1]);
      expect(sent).toHaveBeenCalledTimes(1);
      await db.exec('SELECT 1; SELECT 2');
      expect(sent).toHaveBeenCalledTimes(2);
      await db.transaction(async (tx) => {
        await tx.query('SELECT $1::int AS n', [1]);
        await tx.query('SELECT $1::int AS n', [2]);
      });
      expect(sent).toHaveBeenCalledTimes(6); // BEGIN, two statements, COMMIT
    } finally {
      sent.mockRestore();
    }
  });

  it('round-trips parameters of every kind the Prisma adapter sends, and parses rows as asked', async () => {
    await db.exec(`CREATE TABLE kinds (
      id uuid PRIMARY KEY, doc jsonb, tags text[], counts int[], note text, flag boolean,
      at timestamptz, bytes bytea, big bigint, amount numeric)`);
    const id = '0b5c6a2e-9d7e-4b1e-8f3a-2c4d5e6f7a8b';
    const at = new Date('2026-01-02T03:04:05.678Z');
    const doc = { text: 'naïve "quoted" \\ ✓', nested: [1, null, { deep: true }] };
    await db.query('INSERT INTO kinds VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
      id,
      doc,
      ['a', 'b,c', 'with "quote"'],
      [1, 2, 3],
      null,
      true,
      at,
      new Uint8Array([0, 1, 255]),
      9007199254740993n,
      '12.50',
    ]);
    expect((await db.query('SELECT * FROM kinds WHERE id = $1', [id])).rows).toEqual([
      {
        id,
        doc,
        tags: ['a', 'b,c', 'with "quote"'],
        counts: [1, 2, 3],
        note: null,
        flag: true,
        at,
        bytes: new Uint8Array([0, 1, 255]),
        big: 9007199254740993n,
        amount: '12.50',
      },
    ]);
    // The adapter's way: rows as arrays, its own parsers (here: timestamps kept as text).
    const asArrays = await db.query('SELECT id, at, note FROM kinds WHERE doc @> $1', [{ nested: [1] }], {
      rowMode: 'array',
      parsers: { 1184: (text: string) => `text:${text}` },
    });
    expect(asArrays.rows).toEqual([[id, 'text:2026-01-02 03:04:05.678+00', null]]);
    expect(asArrays.fields.map((field) => field.name)).toEqual(['id', 'at', 'note']);
    expect((await db.query('UPDATE kinds SET note = $1 WHERE id = $2', ['x', id])).affectedRows).toBe(1);
  });

  it('prepares a recurring statement once, and prepares it again when the schema changes what it returns', async () => {
    await db.exec('CREATE TABLE notes (id int PRIMARY KEY, body text)');
    await db.query('INSERT INTO notes VALUES ($1, $2)', [1, 'first']);
    const read = () => db.query('SELECT * FROM notes WHERE id = $1', [1]);
    for (let i = 0; i < 3; i++) expect((await read()).rows).toEqual([{ id: 1, body: 'first' }]);
    expect(
      (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE statement = $1', ['SELECT * FROM notes WHERE id = $1'])).rows,
    ).toHaveLength(1);
    // The named statement's result changes shape: PostgreSQL refuses to run it as prepared (0A000).
    await db.exec("ALTER TABLE notes ADD COLUMN tag text DEFAULT 'x'");
    expect((await read()).rows).toEqual([{ id: 1, body: 'first', tag: 'x' }]);
    expect((await read()).rows).toEqual([{ id: 1, body: 'first', tag: 'x' }]);
    // Gone from the session (DEALLOCATE ALL): prepared again rather than failing.
    await db.exec('DEALLOCATE ALL');
    expect((await read()).rows).toEqual([{ id: 1, body: 'first', tag: 'x' }]);
    expect((await read()).rows).toEqual([{ id: 1, body: 'first', tag: 'x' }]);
    // Errors of a prepared statement still carry their SQLSTATE.
    const insert = (id: number) => db.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [id, 'n']);
    await insert(2);
    await insert(3);
    await expect(insert(3)).rejects.toMatchObject({ code: '23505' });
  });

  it('fails a statement at any step with its SQLSTATE and goes on serving the next one', async () => {
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    const syntax = await failure(db.query('SELEKT $1', [1]));
    expect(syntax).toBeInstanceOf(messages.DatabaseError);
    expect(syntax).toMatchObject({ code: '42601', query: 'SELEKT $1', params: [1] });
    expect(await failure(db.query('SELECT $1::int', ['not a number']))).toMatchObject({ code: '22P02' });
    expect(await failure(db.query('SELECT 1 / $1::int', [0]))).toMatchObject({ code: '22012' });
    expect(await failure(db.query('SELECT $1::jsonb', [{ self: () => 1 }]))).toBeInstanceOf(Error);
    // In one simple query the statements form one transaction: the first insert is undone too.
    expect(await failure(db.exec("INSERT INTO items VALUES (10, 'ten'); INSERT INTO items VALUES (1, 'dup'); SELECT 1"))).toMatchObject({ code: '23505' });
    expect((await db.query('SELECT count(*)::int AS n FROM items WHERE id = 10')).rows).toEqual([{ n: 0 }]);
    expect((await db.query('SELECT $1::text AS still', ['fine'])).rows).toEqual([{ still: 'fine' }]);
  });

  it('rolls back a transaction whose statement fails (a foreign key) or that asks to, and commits one that ends well', async () => {
    await db.exec('CREATE TABLE parts (id int PRIMARY KEY, item int NOT NULL REFERENCES items(id))');
    const failed = db.transaction(async (tx) => {
      await tx.query('INSERT INTO items VALUES ($1, $2)', [20, 'twenty']);
      await tx.query('INSERT INTO parts VALUES ($1, $2)', [1, 999]);
    });
    await expect(failed).rejects.toMatchObject({ code: '23503' });
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items VALUES ($1, $2)', [21, 'twenty-one']);
      await tx.rollback();
      expect(tx.closed).toBe(true);
      await expect(tx.query('SELECT 1')).rejects.toThrow('Transaction is closed');
    });
    const committed = await db.transaction(async (tx) => {
      await tx.exec("INSERT INTO items VALUES (22, 'twenty-two')");
      await tx.sql`INSERT INTO parts VALUES (${2}, ${22})`;
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM parts')).rows[0]!.n;
    });
    expect(committed).toBe(1);
    expect((await db.query('SELECT id FROM items WHERE id >= 20 ORDER BY id')).rows).toEqual([{ id: 22 }]);
    await db.exec('DROP TABLE parts; DELETE FROM items WHERE id = 22');
  });

  it('runs a statement sent during a transaction only after the transaction ends', async () => {
    const order: string[] = [];
    let insideRan!: () => void;
    const inside = new Promise<void>((resolve) => (insideRan = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query("INSERT INTO items VALUES (30, 'thirty')");
      insideRan();
      await new Promise((resolve) => setTimeout(resolve, 50));
      order.push('transaction');
      await tx.query('DELETE FROM items WHERE id = 30');
    });
    await inside;
    const outside = db.query('SELECT count(*)::int AS n FROM items WHERE id = 30').then((result) => {
      order.push('outside');
      return result.rows;
    });
    await transaction;
    expect(await outside).toEqual([{ n: 0 }]);
    expect(order).toEqual(['transaction', 'outside']);
  });

  it('sends statements outside a transaction without waiting for earlier answers, and answers each in order', async () => {
    const sent = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      const answered: number[] = [];
      // The first keeps the worker busy while the others are sent.
      const statements = [
        db.query('SELECT pg_sleep(0.3)').then(() => answered.push(0)),
        ...Array.from({ length: 9 }, (_, i) => db.query<{ n: number }>('SELECT $1::int AS n', [i + 1]).then((r) => answered.push(r.rows[0]!.n))),
      ];
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(sent).toHaveBeenCalledTimes(10);
      expect(answered).toEqual([]);
      await Promise.all(statements);
      expect(answered).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      sent.mockRestore();
    }
  });

  it('keeps nothing of an answer in the worker once it is delivered (its heap does not grow by statement)', async () => {
    const sent = vi.spyOn(Worker.prototype, 'postMessage');
    let worker: Worker;
    try {
      for (let i = 0; i < 200; i++) await db.query('SELECT $1::text AS marker', [`answered-${i}-marker`]);
      worker = sent.mock.contexts[0] as Worker;
    } finally {
      sent.mockRestore();
    }
    // A heap snapshot collects the garbage first: what it still holds is kept.
    let snapshot = '';
    for await (const chunk of await worker.getHeapSnapshot()) snapshot += chunk;
    const kept = (JSON.parse(snapshot) as { strings: string[] }).strings.filter((s) => /^answered-\d+-marker$/.test(s));
    expect(kept).toEqual([]);
  });

  it('stops a statement that overruns its watchdog and reopens the database with committed data', async () => {
    const watched = db.transaction(async (tx) => {
      const watchdog = db.interruptAfter(300, () => new Error('too slow'));
      try {
        return await tx.query('SELECT count(*) FROM generate_series(1, 2000000000)');
      } finally {
        watchdog.disarm();
      }
    });
    // Queued behind the runaway statement, served by the new worker.
    const queued = db.query<{ name: string }>('SELECT name FROM items WHERE id = 1');
    await expect(watched).rejects.toThrow('too slow');
    expect((await queued).rows).toEqual([{ name: 'one' }]);
    await db.query("INSERT INTO items VALUES (3, 'three')");
    expect((await db.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('keeps its data directory private to its owner', async () => {
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  });
});

describe('a memory:// database in a worker thread', () => {
  it('lives in a private temporary directory, removed on close, and removes those of killed processes', async () => {
    // No process has this id (above Linux's pid_max): a database left behind by a killed process.
    const orphan = join(tmpdir(), 'remgraph-pglite-999999999-left');
    await mkdir(join(orphan, 'data'), { recursive: true });
    const db = await PGliteThread.open('memory://');
    try {
      expect(existsSync(orphan)).toBe(false);
      expect(db.dataDir.startsWith(join(tmpdir(), `remgraph-pglite-${process.pid}-`))).toBe(true);
      expect((await stat(join(db.dataDir, '..'))).mode & 0o777).toBe(0o700);
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
    expect(existsSync(join(db.dataDir, '..'))).toBe(false);
  });
});
