import { chmod, cp, mkdir, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';

/**
 * PostgreSQL's default 128 MB of shared buffers sit on top of data PGlite already holds in memory
 * (its file system) or the OS caches: 16 MB takes about 140 MB off the server's RSS with no
 * measurable cost to lookups.
 */
const SMALL_BUFFERS = ['-c', 'shared_buffers=16MB'];

/**
 * A pristine database cluster (PostgreSQL's initdb, nothing else), made by `scripts/build.mjs`
 * (its `database` part) with the installed PGlite. Running initdb in WebAssembly costs a first
 * start several seconds of CPU; copying its result takes milliseconds and gives the same files.
 */
const TEMPLATE = fileURLToPath(new URL('../../.pglite-template/data/', import.meta.url));

/**
 * Opens an embedded PostgreSQL with the extensions the migrations need, in this thread. `memory://`
 * keeps nothing. A data directory is created (or tightened) to mode 0700: it holds every user's data.
 */
export async function openPglite(dataDir: string): Promise<PGlite> {
  if (!dataDir.startsWith('memory://')) {
    // PGlite does not create the parent folders of its data directory.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
    if (existsSync(join(TEMPLATE, 'PG_VERSION')) && (await readdir(dataDir)).length === 0) await cp(TEMPLATE, dataDir, { recursive: true });
  }
  return PGlite.create({ dataDir, extensions: { vector, pg_trgm }, startParams: [...PGlite.defaultStartParams, ...SMALL_BUFFERS] });
}
