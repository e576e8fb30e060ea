/**
 * One process owns a PGlite data directory. PGlite has no postmaster to refuse a second opener:
 * two processes on one directory each write their own view of it, and after a restart rows of one
 * lack the rows another wrote (kv_store, embeddings). The owner keeps its pid in a lock file there;
 * a lock whose process is gone (killed) is taken over.
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCK_FILE = 'remgraph.pid';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    /** What else does the work, e.g. "use the API (ingestFile)". */
    alternative?: string,
  ) {
    super(`the database in ${dataDir} is in use by remgraph (pid ${pid}): stop it${alternative ? `, or ${alternative}` : ''}`);
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  release(): void;
}

/** Lock files this process holds, removed when it exits without closing its databases. */
const held = new Set<string>();
process.on('exit', () => held.forEach(removeIfOurs));

/** Takes the directory (created if missing); throws DataDirInUseError while a live process holds it. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  for (;;) {
    if (create(path)) break;
    const holder = readPid(path);
    if (holder === undefined) continue; // released in between
    if (isRunning(holder)) throw new DataDirInUseError(dataDir, holder);
    // Stale. Read again just before removing it, so a lock another process took over meanwhile stays.
    if (readPid(path) === holder) unlinkSync(path);
  }
  held.add(path);
  return {
    release() {
      if (held.delete(path)) removeIfOurs(path);
    },
  };
}

/**
 * Creates the lock file with this process's pid, atomically and whole (a link to a file already
 * written, so no reader sees it empty): false when it exists.
 */
function create(path: string): boolean {
  const own = `${path}.${process.pid}`;
  writeFileSync(own, `${process.pid}\n`, { mode: 0o600 });
  try {
    linkSync(own, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(own);
  }
}

/** The pid in the lock file, NaN when it holds no number (a stale, damaged lock), undefined when it is gone. */
function readPid(path: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(path, 'utf8'), 10);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeIfOurs(path: string): void {
  try {
    if (readPid(path) === process.pid) unlinkSync(path);
  } catch {
    // Already gone, or the directory with it.
  }
}
