import { pino, type Logger } from 'pino';

export type { Logger };

/** The one logger factory; modules take a child logger from the app rather than making their own. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'remgraph' } });
}
