import type { EventEmitter } from 'node:events';
import type { Logger } from './logger.js';

/**
 * A promise nobody awaited must not end a server that holds other users' turns: it is logged and
 * the server keeps serving. An uncaught exception leaves the process in an unknown state, so it is
 * logged and the server shuts down in order (turns it held are recovered by the next process).
 * Returns a function that removes the guards.
 */
export function installProcessGuards(logger: Logger, shutdown: (reason: string) => void, target: EventEmitter = process): () => void {
  const onRejection = (reason: unknown) => logger.error({ err: reason }, 'unhandled promise rejection (still serving)');
  const onException = (error: unknown) => {
    logger.fatal({ err: error }, 'uncaught exception: shutting down');
    shutdown('uncaughtException');
  };
  target.on('unhandledRejection', onRejection);
  target.on('uncaughtException', onException);
  return () => {
    target.off('unhandledRejection', onRejection);
    target.off('uncaughtException', onException);
  };
}
