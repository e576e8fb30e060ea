import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatApp } from '../../src/http/chat-app.js';

let built: string;
let servers: Server[] = [];

async function serve(root: string): Promise<string> {
  const app = createChatApp(root);
  const server = createServer((req, res) => {
    if (!app(req, res)) res.writeHead(418).end('not mine');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  built = await mkdtemp(join(tmpdir(), 'remgraph-web-'));
  await mkdir(join(built, 'assets'));
  await writeFile(join(built, 'index.html'), '<!doctype html><title>chat</title>');
  await writeFile(join(built, 'assets/index-abc123.js'), 'console.log(1)');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

describe('the chat app route', () => {
  it('answers / and /chat with the page, never cached stale', async () => {
    const base = await serve(built);
    for (const path of ['/', '/chat', '/?session=1']) {
      const res = await fetch(base + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<title>chat</title>');
    }
  });

  it('serves hashed assets for good, and 404s unknown ones', async () => {
    const base = await serve(built);
    const res = await fetch(`${base}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
  });

  it('leaves everything else, other methods and paths outside the build to the server', async () => {
    const base = await serve(built);
    for (const path of ['/graphql', '/healthz', '/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e/%2e%2e/etc/passwd']) {
      const res = await fetch(base + path);
      expect([418, 404], path).toContain(res.status);
      expect(await res.text()).not.toContain('"name"');
    }
    expect((await fetch(`${base}/`, { method: 'POST', body: '{}' })).status).toBe(418);
  });

  it('says how to build the app when it is not built yet', async () => {
    const base = await serve(join(built, 'nothing-here'));
    const res = await fetch(base);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
  });
});
