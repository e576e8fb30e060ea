import type { Database } from './database.js';
import { pendingMigrations } from './migrations.js';

/** Whether the database answers and has every migration applied (GET /readyz). */
export async function readiness(db: Database): Promise<{ ready: boolean; [key: string]: unknown }> {
  try {
    await db.prisma.$queryRaw`SELECT 1`;
  } catch {
    return { ready: false, status: 'database unreachable' };
  }
  const pending = await pendingMigrations(db);
  if (pending.length) return { ready: false, status: 'migrations pending', pending };
  return { ready: true, status: 'ready', backend: db.backend };
}
