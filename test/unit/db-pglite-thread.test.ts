import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messages } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
