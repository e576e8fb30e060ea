import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('EVENT_FLUSH_MS', () => {
  it('defaults to 25 ms on PostgreSQL, where other processes may follow a turn through its log, and 250 ms on PGlite', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/app' }).database.eventFlushMs).toBe(25);
    expect(loadConfig({}).database.eventFlushMs).toBe(250);
    expect(loadConfig({ EVENT_FLUSH_MS: '40' }).database.eventFlushMs).toBe(40);
    expect(loadConfig({ EVENT_FLUSH_MS: '40', DATABASE_URL: 'postgresql://db/app' }).database.eventFlushMs).toBe(40);
  });

  it('refuses a window outside 1 ms to 5 s, naming the setting once', () => {
    for (const value of ['0', '5001', 'soon']) {
      expect(() => loadConfig({ EVENT_FLUSH_MS: value })).toThrow(ConfigError);
      try {
        loadConfig({ EVENT_FLUSH_MS: value });
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^EVENT_FLUSH_MS: /)]);
      }
    }
    // A bad DATABASE_URL, read here too, is reported once.
    expect(() => loadConfig({ DATABASE_URL: 'mysql://db' })).toThrow(/DATABASE_URL: must be a postgresql:\/\/ connection string/);
    try {
      loadConfig({ DATABASE_URL: 'mysql://db' });
    } catch (error) {
      expect((error as ConfigError).problems.filter((p) => p.startsWith('DATABASE_URL'))).toHaveLength(1);
    }
  });
});
