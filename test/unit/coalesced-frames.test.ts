import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { coalesceFrames } from '../../src/graphql/coalesced-frames.js';

/** A websocket server with coalesced frames, a client connected to it, and the server's side of both. */
async function connected() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  coalesceFrames(server);
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[WebSocket, IncomingMessage]>;
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const received: string[] = [];
  client.on('message', (data) => received.push(String(data)));
  const [socket, request] = await accepted;
  await once(client, 'open');
  cleanups.push(async () => {
    client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });
  return { socket, connection: request.socket, client, received };
}

/** Sends each message once the previous one counts as sent, as graphql-ws does with a subscription's events. */
async function sendInTurn(socket: WebSocket, messages: string[], sent: { count: number } = { count: 0 }) {
  for (const message of messages) {
    await new Promise<void>((resolve, reject) => socket.send(message, (error) => (error ? reject(error) : resolve())));
    sent.count++;
  }
}

/** Counts the writes that reach the connection's socket (each a system call). */
function countWrites(connection: Socket): { count: number } {
  const writes = { count: 0 };
  const target = connection as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  for (const method of ['_write', '_writev'] as const) {
    const original = target[method].bind(connection);
    target[method] = (...args: unknown[]) => {
      writes.count++;
      return original(...args);
    };
  }
  return writes;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('coalesced websocket frames', () => {
  it('sends the frames of one turn of the event loop in one write, in order', async () => {
    const { socket, connection, received } = await connected();
    const writes = countWrites(connection);
    const messages = Array.from({ length: 20 }, (_, i) => `{"token":${i}}`);

    await sendInTurn(socket, messages);
    while (received.length < messages.length) await sleep(5);

    expect(received).toEqual(messages);
    expect(writes.count).toBe(1);
  });

  it('frames sent in later turns of the loop are not held back', async () => {
    const { socket, received } = await connected();
    await sendInTurn(socket, ['first']);
    while (received.length < 1) await sleep(5);
    // The next turn of the loop: the first frame arrived without anything else being sent.
    await sendInTurn(socket, ['second']);
    while (received.length < 2) await sleep(5);
    expect(received).toEqual(['first', 'second']);
  });

  it('holds a sender back while a client reads slowly, and loses nothing', async () => {
    const { socket, connection, client, received } = await connected();
    const clientSocket = (client as unknown as { _socket: Socket })._socket;
    clientSocket.pause();
    const frame = (i: number) => `${i}:${'x'.repeat(32 * 1024)}`;
    const messages = Array.from({ length: 400 }, (_, i) => frame(i));
    const sent = { count: 0 };
    const sending = sendInTurn(socket, messages, sent);

    // Wait until the sender stops making progress: the client's and the kernel's buffers are full.
    let last = -1;
    while (sent.count !== last) {
      last = sent.count;
      await sleep(200);
    }
    expect(sent.count).toBeLessThan(messages.length);
    // What waits in this process is bounded by the limit and the one frame that crossed it.
    expect(connection.writableLength).toBeLessThanOrEqual(64 * 1024 + frame(0).length + 64);

    clientSocket.resume();
    await sending;
    while (received.length < messages.length) await sleep(10);
    expect(received.map((m) => Number(m.slice(0, m.indexOf(':'))))).toEqual(messages.map((_, i) => i));
  });
});
