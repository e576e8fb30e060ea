import { describe, expect, it } from 'vitest';
import { REM_DIALECT, REM_DIALECT_MODES } from '../../src/rem/dialect.js';
import { parseRemQuery, REM_MODES } from '../../src/rem/parser.js';

describe('the REM dialect as shown to models and people', () => {
  it.each(REM_MODES)('shows a %s example the parser reads as that mode', (mode) => {
    expect(parseRemQuery(REM_DIALECT_MODES[mode].example).mode).toBe(mode);
  });

  it('is one text naming every mode with its use', () => {
    for (const mode of REM_MODES) expect(REM_DIALECT).toContain(`${REM_DIALECT_MODES[mode].example} (${REM_DIALECT_MODES[mode].use})`);
  });
});
