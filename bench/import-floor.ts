/**
 * The physical floor of a bulk import (issue 41, target 4), for bench/import.ts: the same rows
 * (key, text, 384-d vector, jsonb) loaded by one `COPY` into a plain table, then one HNSW build
 * with remgraph's index parameters (pgvector's defaults, m = 16 and ef_construction = 64, and the
 * build memory of src/rem/import/vector-index.ts), on PostgreSQL and on PGlite (in this thread,
 * opened as remgraph opens it). The vectors are computed before the clock starts: the floor is
 * what the database itself does with rows it is handed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { copyFromStdin } from '../src/db/copy-from-stdin.js';
import { openPglite } from '../src/db/pglite.js';

const TABLE = 'CREATE TABLE floor_rows (key text NOT NULL, text text NOT NULL, embedding vector(384) NOT NULL, data jsonb NOT NULL)';
const INDEX = 'CREATE INDEX floor_rows_hnsw ON floor_rows USING hnsw (embedding vector_cosine_ops)';

export interface FloorResult {
  copyS: number;
  indexS: number;
  totalS: number;
}

export async function postgresFloor(url: string, lines: string[]): Promise<FloorResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    await client.query(TABLE);
    const started = performance.now();
    await copyFromStdin(client, 'COPY floor_rows FROM STDIN', lines);
    const copied = performance.now();
    await client.query(`SET maintenance_work_mem = '2GB'`);
    await client.query('SET max_parallel_maintenance_workers = 2');
    await client.query(INDEX);
    const done = performance.now();
    return { copyS: (copied - started) / 1000, indexS: (done - copied) / 1000, totalS: (done - started) / 1000 };
  } finally {
    await client.end();
  }
}

export async function pgliteFloor(lines: string[]): Promise<FloorResult> {
  const dir = await mkdtemp(join(tmpdir(), 'remgraph-import-floor-'));
  const db = await openPglite(join(dir, 'data'));
  try {
    await db.exec(TABLE);
    const started = performance.now();
    await db.query(`COPY floor_rows FROM '/dev/blob'`, [], { blob: new Blob(lines) });
    const copied = performance.now();
    await db.exec(`SET maintenance_work_mem = '512MB'`);
    await db.exec(INDEX);
    const done = performance.now();
    return { copyS: (copied - started) / 1000, indexS: (done - copied) / 1000, totalS: (done - started) / 1000 };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
