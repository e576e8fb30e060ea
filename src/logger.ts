import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * The one logger factory; modules take a child logger from the app rather than making their own.
 * JSON lines, except on a terminal, where they are printed readably (pino-pretty, in process).
 */
export function createLogger(level: string, pretty = Boolean(process.stdout.isTTY)): Logger {
  const options = { level, base: { service: 'remgraph' } };
  return pretty ? pino(options, prettyStream()) : pino(options);
}

function prettyStream(): DestinationStream {
  // Loaded only for terminals: services writing JSON never pay for it.
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as (options: object) => DestinationStream;
  return pinoPretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,service' });
}
