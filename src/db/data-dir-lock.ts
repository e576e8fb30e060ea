/**
 * One process owns a PGlite data directory. PGlite has no postmaster to refuse a second opener:
 * two processes on one directory each write their own view of it, and after a restart rows of one
 * lack the rows another wrote (kv_store, embeddings). The owner keeps its pid, and on Linux its start
 * time, in a lock file there; a lock whose process is gone (killed, exiting, or its pid now someone
 * else's) is taken over.
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
    const holder = readHolder(path);
    if (holder === undefined) continue; // released in between
    if (held.has(path) || holdsLock(holder)) throw new DataDirInUseError(dataDir, holder.pid);
    // Stale. Read again just before removing it, so a lock another process took over meanwhile stays.
    if (readHolder(path)?.line === holder.line) unlinkSync(path);
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
  const started = procStat('self')?.started;
  writeFileSync(own, `${process.pid}${started === undefined ? '' : ` ${started}`}\n`, { mode: 0o600 });
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

interface LockHolder {
  line: string;
  /** NaN when the file holds no number: a stale, damaged lock. */
  pid: number;
  /** The holder's start time in clock ticks since boot (Linux), absent in older lock files. */
  started: string | undefined;
}

/** Who the lock file names; undefined when it is gone. */
function readHolder(path: string): LockHolder | undefined {
  try {
    const line = readFileSync(path, 'utf8').trim();
    const [pid, started] = line.split(' ');
    return { line, pid: Number.parseInt(pid ?? '', 10), started };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether the process the lock names still holds it. Not when the pid is this process's own (it
 * holds no lock it did not take: a restart whose pid repeats, as PID 1 of a container does), when
 * that process is exiting (a `kill -9` being carried out: it writes nothing more), or when the pid
 * now belongs to a process that started at another time.
 */
function holdsLock(holder: LockHolder): boolean {
  if (holder.pid === process.pid || !isRunning(holder.pid)) return false;
  const stat = procStat(holder.pid);
  if (stat === undefined) return true; // no /proc: the pid is all there is to go by
  if (stat.exiting) return false;
  return holder.started === undefined || holder.started === stat.started;
}

/** PF_EXITING in /proc/<pid>/stat's flags: set when the kernel starts tearing the process down. */
const PF_EXITING = 0x4;

/** The fields of /proc/<pid>/stat that tell a holder apart from a process that reuses its pid. */
function procStat(pid: number | 'self'): { started: string; exiting: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0]!;
  const flags = Number(fields[6]);
  return { started: fields[19]!, exiting: state === 'Z' || state === 'X' || (flags & PF_EXITING) !== 0 };
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
    if (readHolder(path)?.pid === process.pid) unlinkSync(path);
  } catch {
    // Already gone, or the directory with it.
  }
}
