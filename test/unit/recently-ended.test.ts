import { afterEach, describe, expect, it, vi } from 'vitest';
import { RecentlyEnded } from '../../src/events/recently-ended.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('RecentlyEnded', () => {
  it('keeps an entry for its time, then forgets it', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const recent = new RecentlyEnded<string>(30_000, 10);
    recent.set('a', 'A');
    vi.setSystemTime(1_030_000);
    expect(recent.get('a')).toBe('A');
    vi.setSystemTime(1_030_001);
    expect(recent.get('a')).toBeUndefined();
  });

  it('forgets expired entries without being used again, and holds no timer once empty', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const recent = new RecentlyEnded<string>(30_000, 10);
    recent.set('a', 'A');
    vi.advanceTimersByTime(10_000);
    recent.set('b', 'B');
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(20_001);
    expect(recent.size).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(recent.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('lets the oldest entries go to stay within its weight, and never keeps one heavier than all of it', () => {
    const recent = new RecentlyEnded<number[]>(30_000, 5, (events) => events.length);
    recent.set('a', [1, 2]);
    recent.set('b', [1, 2]);
    recent.set('c', [1, 2]);
    expect([recent.get('a'), recent.get('b'), recent.get('c')]).toEqual([undefined, [1, 2], [1, 2]]);
    recent.set('huge', [1, 2, 3, 4, 5, 6]);
    expect(recent.get('huge')).toBeUndefined();
    expect(recent.get('b')).toEqual([1, 2]);
    // Setting an id again replaces its entry (and its weight).
    recent.set('b', [1]);
    recent.set('d', [1, 2]);
    expect([recent.get('b'), recent.get('c'), recent.get('d')]).toEqual([[1], [1, 2], [1, 2]]);
  });

  it('forgets what deleteWhere picks', () => {
    const recent = new RecentlyEnded<{ session: string }>(1000, 3);
    recent.set('b', { session: 's1' });
    recent.set('c', { session: 's2' });
    recent.set('d', { session: 's2' });
    recent.deleteWhere((v) => v.session === 's2');
    expect([recent.get('b'), recent.get('c'), recent.get('d')]).toEqual([{ session: 's1' }, undefined, undefined]);
  });
});
