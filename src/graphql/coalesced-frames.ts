import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';

/**
 * Most a connection may hold unsent (bytes) before a frame's sender waits for the network again:
 * under it, graphql-ws goes on to the next message at once; over it (a client that reads slowly),
 * each message waits until its frame is written, as without coalescing.
 */
const UNSENT_LIMIT_BYTES = 64 * 1024;

type Callback = (error?: Error) => void;

/**
 * Frames sent to a socket in one turn of the event loop leave in one write. A model's network read
 * often carries several tokens, and graphql-ws sends each event in a frame of its own and waits
 * for it to be written before it takes the next: one system call per frame was the largest single
 * cost of streaming a turn. Here the connection's socket is corked at its first frame of a turn of
 * the loop and uncorked once the loop's queued work is done, and a frame counts as sent while the
 * connection holds little unsent data, so graphql-ws takes the next event of the same read at once.
 * Nothing waits longer: the frames leave before the event loop waits for anything else.
 *
 * Installed before graphql-ws's own listener, so every socket is set up before its first frame.
 */
export function coalesceFrames(wsServer: WebSocketServer): void {
  wsServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const connection = request.socket;
    const send = socket.send.bind(socket) as (data: unknown, options: object, cb?: Callback) => void;
    let corked = false;
    const uncork = () => {
      corked = false;
      if (!connection.destroyed) connection.uncork();
    };
    socket.send = ((data: unknown, optionsOrCallback?: object | Callback, callback?: Callback) => {
      const [options, cb] = typeof optionsOrCallback === 'function' ? [{}, optionsOrCallback as Callback] : [optionsOrCallback ?? {}, callback];
      if (!corked && !connection.destroyed) {
        corked = true;
        connection.cork();
        process.nextTick(uncork);
      }
      if (cb && connection.writableLength < UNSENT_LIMIT_BYTES) {
        send(data, options);
        cb();
      } else {
        send(data, options, cb);
      }
    }) as WebSocket['send'];
  });
}
