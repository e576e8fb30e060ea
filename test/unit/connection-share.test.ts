import { describe, expect, it } from 'vitest';
import { sharePool } from '../../src/cluster/connection-share.js';
import { ConfigError } from '../../src/config/config.js';

describe("the workers' share of PostgreSQL's connections", () => {
  it('keeps the pool when every worker fits with its liveness connection', () => {
    expect(sharePool(97, 8, { poolSize: 10, poolSizeSet: false })).toEqual({ poolSize: 10 });
    expect(sharePool(22, 2, { poolSize: 10, poolSizeSet: true })).toEqual({ poolSize: 10 });
  });

  it('shrinks the default pool to fit, and says so', () => {
    // 16 workers on a default server (max_connections 100, 3 reserved): 6 pool connections + 1 each.
    const share = sharePool(97, 16, { poolSize: 10, poolSizeSet: false });
    expect(share.poolSize).toBe(5);
    expect(16 * (share.poolSize + 1)).toBeLessThanOrEqual(97);
    expect(share.notice).toEqual({
      level: 'info',
      message: expect.stringMatching(/16 workers with the default pool of 10 hold up to 176 .* accepts 97 more: each worker's pool holds 5$/),
    });
    expect(sharePool(9, 2, { poolSize: 10, poolSizeSet: false }).poolSize).toBe(3);
  });

  it('keeps a pool size that was set, with a warning naming one that fits', () => {
    const share = sharePool(9, 2, { poolSize: 10, poolSizeSet: true });
    expect(share.poolSize).toBe(10);
    expect(share.notice).toEqual({
      level: 'warn',
      message: expect.stringMatching(/DATABASE_POOL_SIZE=10 hold up to 22 .* accepts 9 more: .*too many connections.*set DATABASE_POOL_SIZE to 3 or less$/),
    });
  });

  it('refuses to start workers that cannot each have two connections', () => {
    expect(() => sharePool(9, 5, { poolSize: 10, poolSizeSet: false })).toThrow(ConfigError);
    expect(() => sharePool(9, 5, { poolSize: 10, poolSizeSet: false })).toThrow(
      /WORKERS: 5 workers need at least 10 PostgreSQL connections .* accepts 9 more: lower --workers/,
    );
    expect(sharePool(10, 5, { poolSize: 10, poolSizeSet: false }).poolSize).toBe(1);
  });
});
