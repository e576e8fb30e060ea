import { CliError } from './client.js';

/** A flag's value that must be a positive whole number (`--first 5`). */
export function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${flag}: expected a positive whole number, got "${text}"`);
  return n;
}
