import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createOriginPolicy } from '../../src/http/origin-policy.js';
import { runCli } from '../support/process.js';

const JWKS = { AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json', AUTH_JWT_ISSUER: 'https://id.example.com/', AUTH_JWT_AUDIENCE: 'remgraph' };

describe('security settings', () => {
  it.each([
    [{ HOST: '0.0.0.0' }, /HOST: 0\.0\.0\.0 is reachable from other machines.*ALLOW_HEADER_AUTH=true/],
    [{ HOST: '192.168.1.10' }, /HOST: 192\.168\.1\.10/],
    [{ ...JWKS, AUTH_JWKS_URL: 'http://id.example.com/jwks' }, /AUTH_JWKS_URL: must be https:\/\//],
    [{ AUTH_JWKS_URL: JWKS.AUTH_JWKS_URL }, /AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE: required with AUTH_JWKS_URL/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS: "\*" is not an origin/],
    [{ CORS_ORIGINS: 'https://a.example.com/app' }, /CORS_ORIGINS: .*\(no path, no wildcard\)/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [{ HOST: '127.0.0.1' }],
    [{ HOST: 'localhost' }],
    [{ HOST: '::1' }],
    [{ HOST: '0.0.0.0', ALLOW_HEADER_AUTH: 'true' }],
    [{ HOST: '0.0.0.0', AUTH_JWT_SECRET: 's'.repeat(32) }],
    [{ HOST: '0.0.0.0', ...JWKS }],
    [{ ...JWKS, AUTH_JWKS_URL: 'http://127.0.0.1:9999/jwks' }],
  ])('accepts %j', (env) => {
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('keeps `remgraph serve` from starting on 0.0.0.0 with header identity: exit 1, the reason, no stack', async () => {
    const { exit } = runCli(['serve'], { HOST: '0.0.0.0', PORT: '0', DATA_DIR: 'memory://' });
    const { code, stderr } = await exit;
    expect(code).toBe(1);
    expect(stderr).toContain('HOST: 0.0.0.0 is reachable from other machines');
    expect(stderr).not.toMatch(/\bat .*\(/);
  });

  it('has no cross-site origins by default and keeps the listed ones exact', () => {
    expect(loadConfig({}).security.corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example.com, http://localhost:5173' }).security.corsOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:5173',
    ]);
  });
});

describe('origin policy', () => {
  const policy = createOriginPolicy(['https://app.example.com']);
  it.each([
    [undefined, 'api.example.com', true],
    ['https://api.example.com', 'api.example.com', true],
    ['http://127.0.0.1:4000', '127.0.0.1:4000', true],
    ['https://app.example.com', 'api.example.com', true],
    ['https://evil.example.net', 'api.example.com', false],
    ['http://127.0.0.1:5000', '127.0.0.1:4000', false],
    ['null', 'api.example.com', false],
    ['not a url', 'api.example.com', false],
  ])('Origin %s to Host %s: %s', (origin, host, allowed) => {
    expect(policy.allows(origin, host)).toBe(allowed);
  });
});

describe('keys', () => {
  it('sends OPENAI_API_KEY to the embeddings endpoint only when it is on OPENAI_BASE_URL’s origin', () => {
    const embedding = (env: Record<string, string>) => loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-openai', ...env }).rem.embedding;
    expect(embedding({}).apiKey).toBe('sk-openai');
    expect(embedding({ EMBEDDING_BASE_URL: 'https://api.openai.com/v1/' }).apiKey).toBe('sk-openai');
    expect(embedding({ EMBEDDING_BASE_URL: 'https://embed.example.com/v1' }).apiKey).toBeNull();
    expect(embedding({ EMBEDDING_BASE_URL: 'http://api.openai.com/v1' }).apiKey).toBeNull();
    expect(embedding({ EMBEDDING_BASE_URL: 'https://embed.example.com/v1', EMBEDDING_API_KEY: 'sk-embed' }).apiKey).toBe('sk-embed');
  });
});
