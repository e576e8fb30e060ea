/**
 * Worker-thread entry that parses SQL-mode queries with PostgreSQL's own parser (libpg-query's
 * WebAssembly; see sql-parser.ts): loading and compiling it takes a hundred milliseconds or more,
 * which on the server's thread would stall every request in flight.
 */
import { parentPort } from 'node:worker_threads';
import { loadModule, parseSync } from 'libpg-query';

export interface ParseRequest {
  id: number;
  sql: string;
}
export type ParseReply =
  /** The tree as JSON text: a deep tree that structured clone would fail to copy (it recurses, and
   * the receiving side drops a message it cannot rebuild) is parsed back by JSON.parse, which does not. */
  | { id: number; json: string }
  | { id: number; error: { message: string; cursorPosition: number } }
  /** The tree is nested too deeply to write out (JSON.stringify recurses too). */
  | { id: number; tooDeep: true };

await loadModule();
const port = parentPort!;
port.on('message', ({ id, sql }: ParseRequest) => {
  let tree: unknown;
  try {
    tree = parseSync(sql);
  } catch (error) {
    const details = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    return reply({ id, error: { message: (error as Error).message, cursorPosition: details?.cursorPosition ?? 0 } });
  }
  let json: string;
  try {
    json = JSON.stringify(tree);
  } catch {
    return reply({ id, tooDeep: true });
  }
  reply({ id, json });
});

function reply(message: ParseReply): void {
  port.postMessage(message);
}
