/**
 * `COPY … FROM STDIN` over node-postgres's protocol connection (pg ships no COPY stream of its own,
 * and pg-copy-streams is not a dependency): the one way to hand PostgreSQL many rows without a
 * statement's parameter or JSON parsing in between.
 */
import type pg from 'pg';

/** One value in COPY's text format: `\N` for null, backslash, tab, newline and carriage return escaped. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'boolean'
        ? value
          ? 't'
          : 'f'
        : value instanceof Date
          ? value.toISOString()
          : typeof value === 'object'
            ? JSON.stringify(value)
            : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One row in COPY's text format: values tab-separated (objects and arrays as JSON), ending in a newline. */
export function copyRow(values: readonly unknown[]): string {
  return `${values.map(copyValue).join('\t')}\n`;
}

/**
 * Runs `sql` (a `COPY … FROM STDIN`, or a simple query of several statements with one such COPY
 * among them) on `client`, sending `rows` (from copyRow) in chunks of about 1 MB. The rows follow
 * the query at once, not when the server asks for them (its CopyInResponse): waiting for that
 * answer left the server idle in mid-transaction until this process's event loop got to it, a
 * third of a bulk import's load on a busy machine. The protocol allows it: the server reads them
 * when the COPY starts, and ignores them, as it does any copy data outside a COPY, when a statement
 * before the COPY fails. Rows the other statements return are ignored.
 */
export function copyFromStdin(client: pg.ClientBase, sql: string, rows: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // node-postgres runs any object with `submit` as a query and hands it the protocol messages.
    const submittable = {
      submit: (connection: CopyConnection) => {
        connection.query(sql);
        let chunk: string[] = [];
        let size = 0;
        for (const row of rows) {
          chunk.push(row);
          size += row.length;
          if (size > 1 << 20) {
            connection.sendCopyFromChunk(Buffer.from(chunk.join('')));
            chunk = [];
            size = 0;
          }
        }
        if (chunk.length) connection.sendCopyFromChunk(Buffer.from(chunk.join('')));
        connection.endCopyFrom();
      },
      handleCopyInResponse: () => {},
      handleCommandComplete: () => {},
      handleRowDescription: () => {},
      handleDataRow: () => {},
      handleEmptyQuery: () => {},
      // On an error node-postgres forgets the query at once: handleReadyForQuery follows only success.
      handleError: (error: Error) => reject(error),
      handleReadyForQuery: () => resolve(),
    };
    void (client as unknown as { query: (q: typeof submittable) => unknown }).query(submittable);
  });
}

/** The part of pg's connection a COPY FROM STDIN uses. */
interface CopyConnection {
  query(sql: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}
