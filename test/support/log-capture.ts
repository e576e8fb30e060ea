import { pino } from 'pino';
import type { Logger } from '../../src/logger.js';

/** A real logger whose JSON lines a test can read back. */
export function capturingLogger(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
  return { logger, lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
