/**
 * Worker-thread entry that holds the embedded database (see pglite-thread.ts): it executes
 * PostgreSQL wire-protocol messages and answers with the raw response bytes, so that a long
 * statement blocks this thread, never the server's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite } from './pglite.js';

export type WorkerCall = { kind: 'protocol'; message: Uint8Array } | { kind: 'close' };
export type WorkerRequest = WorkerCall & { id: number };
export type WorkerReply = { id: number; data?: Uint8Array; error?: string } | { ready: true } | { failed: string };

const port = parentPort!;
try {
  const db = await openPglite((workerData as { dataDir: string }).dataDir);
  port.on('message', async (request: WorkerRequest) => {
    try {
      if (request.kind === 'protocol') {
        // The response is a view of PGlite's reusable buffer: send a copy.
        const data = (await db.execProtocolRaw(request.message, { syncToFs: false })).slice();
        port.postMessage({ id: request.id, data } satisfies WorkerReply, [data.buffer]);
        return;
      }
      await db.close();
      port.postMessage({ id: request.id } satisfies WorkerReply);
    } catch (error) {
      port.postMessage({ id: request.id, error: (error as Error).message } satisfies WorkerReply);
    }
  });
  port.postMessage({ ready: true } satisfies WorkerReply);
} catch (error) {
  port.postMessage({ failed: (error as Error).message } satisfies WorkerReply);
}
