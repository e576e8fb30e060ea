import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../src/llm/sse.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `body` cut at every position in `cuts` and returns all event data. */
function decode(body: string | Uint8Array, cuts: number[] = []): string[] {
  const all = typeof body === 'string' ? bytes(body) : body;
  const decoder = new SseDecoder();
  const events: string[] = [];
  let from = 0;
  for (const cut of [...cuts, all.length]) {
    events.push(...decoder.push(all.subarray(from, cut)));
    from = cut;
  }
  return events;
}

describe('SseDecoder', () => {
  it('gives the data of each event, many per chunk', () => {
    expect(decode('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n')).toEqual(['{"a":1}', '{"a":2}', '[DONE]']);
  });

  it('ends lines at LF, CRLF or CR, also when a CRLF is split between chunks', () => {
    const body = 'data: a\r\n\r\ndata: b\r\rdata: c\n\n';
    for (let cut = 0; cut <= body.length; cut++) expect(decode(body, [cut])).toEqual(['a', 'b', 'c']);
  });

  it('joins data lines, skips comments and other fields, and keeps a space after the first', () => {
    expect(decode(': keep-alive\n\nevent: x\nid: 1\ndata:one\ndata:  two\ndata\nretry: 5\n\n')).toEqual(['one\n two\n']);
  });

  it('decodes characters split between chunks', () => {
    const body = bytes('data: é\n\ndata: héllo 🌍\n\n');
    for (let cut = 0; cut <= body.length; cut++) {
      expect(decode(body, [cut])).toEqual(['é', 'héllo 🌍']);
      expect(decode(body, [cut, Math.min(cut + 2, body.length)])).toEqual(['é', 'héllo 🌍']);
    }
  });

  it('drops an event the body ends in the middle of', () => {
    expect(decode('data: a\n\ndata: b\n')).toEqual(['a']);
  });
});
