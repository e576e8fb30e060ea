import { chmod, mkdir, readdir } from 'node:fs/promises';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { LOCK_FILE } from './data-dir-lock.js';

/**
 * PostgreSQL's default 128 MB of shared buffers sit on top of data PGlite already holds in memory
 * (its file system) or the OS caches: 16 MB takes about 140 MB off the server's RSS with no
 * measurable cost to lookups.
 */
const SMALL_BUFFERS = ['-c', 'shared_buffers=16MB'];

/**
 * The database a new data directory starts as a copy of, made by `scripts/build.mjs` (its
 * `database` part) with the installed PGlite: initdb, then every committed migration. Running
 * initdb and the migrations in WebAssembly costs a first start several seconds of CPU; copying
 * their result takes milliseconds. A template older than the migrations is still a good start:
 * the migrations it lacks are applied at start-up like on any existing database.
 */
const TEMPLATE = fileURLToPath(new URL('../../.pglite-template/data/', import.meta.url));

/**
 * Opens an embedded PostgreSQL with the extensions the migrations need, in this thread. `memory://`
 * keeps nothing. A data directory is created (or tightened) to mode 0700: it holds every user's data.
 * A directory with no database in it yet starts as a copy of `template` when there is one.
 */
export async function openPglite(dataDir: string, template = TEMPLATE): Promise<PGlite> {
  if (!dataDir.startsWith('memory://')) {
    // PGlite does not create the parent folders of its data directory.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
    // Copied synchronously: this runs on the database's own thread (pglite-worker.ts), which has
    // nothing else to do until the database is open, and the promise-based copy of the template's
    // ~1,100 files (one thread-pool round trip per step of each) made a first start 0.9 s slower.
    if (existsSync(join(template, 'PG_VERSION')) && (await holdsNoDatabase(dataDir))) cpSync(template, dataDir, { recursive: true });
  }
  return PGlite.create({ dataDir, extensions: { vector, pg_trgm }, startParams: [...PGlite.defaultStartParams, ...SMALL_BUFFERS] });
}

/** Nothing in the directory but the owner's lock file (data-dir-lock.ts, taken before the database is opened). */
async function holdsNoDatabase(dataDir: string): Promise<boolean> {
  return (await readdir(dataDir)).every((name) => name.startsWith(LOCK_FILE));
}
