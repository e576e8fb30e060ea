import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installProcessGuards } from '../../src/process-guards.js';
import { capturingLogger } from '../support/log-capture.js';

describe('process guards', () => {
  it('log an unhandled rejection and keep serving', () => {
    const target = new EventEmitter();
    const log = capturingLogger();
    const shutdowns: string[] = [];
    installProcessGuards(log.logger, (reason) => shutdowns.push(reason), target);
    target.emit('unhandledRejection', new Error('nobody awaited me'));
    expect(shutdowns).toEqual([]);
    expect(log.lines()).toMatchObject([{ level: 50, msg: 'unhandled promise rejection (still serving)', err: { message: 'nobody awaited me' } }]);
  });

  it('log an uncaught exception and shut down in order', () => {
    const target = new EventEmitter();
    const log = capturingLogger();
    const shutdowns: string[] = [];
    const remove = installProcessGuards(log.logger, (reason) => shutdowns.push(reason), target);
    target.emit('uncaughtException', new Error('thrown in a callback'));
    expect(shutdowns).toEqual(['uncaughtException']);
    expect(log.lines()).toMatchObject([{ level: 60, msg: 'uncaught exception: shutting down' }]);
    remove();
    expect(target.listenerCount('uncaughtException')).toBe(0);
    expect(target.listenerCount('unhandledRejection')).toBe(0);
  });
});
