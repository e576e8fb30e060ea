import { ValidationError } from '../errors.js';

/**
 * Connection size limits. Pothos would silently cut `first: 5000` down to the maximum, which
 * reads to a client like "there are no more rows"; asking for too many is an error instead.
 */
export function pageSize(defaultSize: number, maxSize: number) {
  return {
    defaultSize,
    maxSize: (args: { first?: number | null; last?: number | null }) => {
      for (const name of ['first', 'last'] as const) {
        const value = args[name];
        if (value != null && (value < 0 || value > maxSize)) {
          throw new ValidationError(`${name}: must be between 0 and ${maxSize}`, [{ path: [name], message: `must be between 0 and ${maxSize}` }]);
        }
      }
      return maxSize;
    },
  };
}
