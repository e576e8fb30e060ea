/**
 * The private directories that stand in for `memory://` databases (see pglite-thread.ts): one per
 * database, named after its process, so that those of a process that was killed before it could
 * remove them are found and removed by the next process that makes one.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isRunning } from './data-dir-lock.js';

const TEMPORARY = /^remgraph-pglite-(\d+)-/;

/** A fresh data directory for a `memory://` database, named after this process. */
export async function temporaryDataDir(): Promise<string> {
  await removeOrphans();
  return join(await mkdtemp(join(tmpdir(), `remgraph-pglite-${process.pid}-`)), 'data');
}

/** Removes a data directory made by temporaryDataDir, with the directory around it. */
export async function removeTemporaryDataDir(dataDir: string): Promise<void> {
  await rm(dirname(dataDir), { recursive: true, force: true });
}

/** Removes the temporary databases of processes that ended without closing them (killed, say). */
async function removeOrphans(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => []);
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(TEMPORARY.exec(name)?.[1]);
      if (pid && !isRunning(pid)) await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => {});
    }),
  );
}
