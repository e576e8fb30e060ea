const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits the bytes of a `text/event-stream` body into the `data` of each event, synchronously: a
 * caller reads the body and takes every event a network chunk completed, with no generator per
 * event. Lines end at LF, CRLF or CR; comments and fields other than `data` are skipped; an event
 * the body ends in the middle of is dropped, as the SSE specification says. Each chunk's text is
 * scanned once (the OpenAI SDK's decoder copies the rest of its buffer after every event, which is
 * quadratic in the events a network chunk holds when the model streams fast). Bytes are decoded
 * up to a chunk's last line break, which no multi-byte character contains, so the decoder never
 * needs its streaming mode (several times slower in Node 20).
 */
export class SseDecoder {
  private readonly text = new TextDecoder();
  /** Bytes after the last line break seen. */
  private pending: Uint8Array[] = [];
  /** A last line that ends in a CR, which may be the first half of a CRLF. */
  private rest = '';
  /** Data lines of the event being read. */
  private data: string[] = [];

  /** The data of every event these bytes complete, in order. */
  push(bytes: Uint8Array): string[] {
    let last = bytes.length - 1;
    while (last >= 0 && bytes[last] !== LF && bytes[last] !== CR) last--;
    if (last < 0) {
      this.pending.push(bytes.slice());
      return [];
    }
    const head = this.pending.length ? Buffer.concat([...this.pending, bytes.subarray(0, last + 1)]) : bytes.subarray(0, last + 1);
    this.pending = last + 1 < bytes.length ? [bytes.slice(last + 1)] : [];
    const text = this.rest + this.text.decode(head);
    const events: string[] = [];
    let start = 0;
    // Where the next CR is, found again only once passed: most streams have none.
    let cr = -2;
    while (true) {
      const lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR at the end may be the first half of a CRLF whose LF is in the next chunk.
        if (cr === text.length - 1) break;
        end = cr;
        next = lf === cr + 1 ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        break;
      }
      this.line(text.slice(start, end), events);
      start = next;
    }
    this.rest = text.slice(start);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length) events.push(this.data.length === 1 ? this.data[0]! : this.data.join('\n'));
      this.data = [];
    } else if (line.startsWith('data')) {
      const colon = line.indexOf(':');
      if (colon === 4) this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      else if (colon === -1 && line.length === 4) this.data.push('');
    }
  }
}
