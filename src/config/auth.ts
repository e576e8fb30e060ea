import { z } from 'zod';
import { bool } from './env-values.js';
import { serverVariables } from './server.js';

const authVariables = z.object({
  /** Where the server listens decides whether header identity is safe. */
  HOST: serverVariables.shape.HOST,
  AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters for HS256').optional().describe('HS256 secret (32+ characters); enables JWT auth'),
  AUTH_JWKS_URL: z
    .url()
    .optional()
    .describe('JWKS URL for asymmetric JWTs (`https://`, plain `http://` only on loopback); enables JWT auth (set this or the secret)'),
  AUTH_JWT_ISSUER: z.string().optional().describe('required `iss` claim; must be set with `AUTH_JWKS_URL`'),
  AUTH_JWT_AUDIENCE: z.string().optional().describe('required `aud` claim; must be set with `AUTH_JWKS_URL`'),
  AUTH_TENANT_CLAIM: z.string().default('tenant_id').describe('JWT claim holding the tenant; a token without it is refused unless `AUTH_TENANT_OPTIONAL=true`'),
  AUTH_ADMIN_ROLE: z.string().default('admin').describe('role (in the `roles` claim or the `scope` string) that grants admin'),
  DEFAULT_TENANT: z.string().min(1).default('default').describe('tenant when a token or request names none'),
  DEFAULT_USER: z
    .string()
    .min(1)
    .optional()
    .describe(
      'user id in header mode when no `X-User-Id` is sent; unset, such callers are anonymous: they read shared rows only (see [Security](security.md#anonymous-callers))',
    ),
  ALLOW_HEADER_AUTH: bool
    .default(false)
    .describe('let header identity (`X-User-Id`, `X-Roles`) serve on a non-loopback `HOST` (only behind a proxy that sets `X-User-Id` itself)'),
  AUTH_TENANT_OPTIONAL: bool.default(false).describe('accept tokens without the tenant claim, in `DEFAULT_TENANT`; otherwise they are refused'),
});

type AuthVariables = z.output<typeof authVariables>;

/** Who the caller is: verified JWTs when a secret or key set is configured, else request headers. */
export const authSettings = authVariables
  .superRefine((e, ctx) => {
    for (const message of authProblems(e)) ctx.addIssue({ code: 'custom', message });
  })
  .transform((e) =>
    usesJwt(e)
      ? {
          mode: 'jwt' as const,
          secret: e.AUTH_JWT_SECRET,
          jwksUrl: e.AUTH_JWKS_URL,
          issuer: e.AUTH_JWT_ISSUER,
          audience: e.AUTH_JWT_AUDIENCE,
          tenantClaim: e.AUTH_TENANT_CLAIM,
          tenantOptional: e.AUTH_TENANT_OPTIONAL,
          adminRole: e.AUTH_ADMIN_ROLE,
          defaultTenant: e.DEFAULT_TENANT,
        }
      : { mode: 'headers' as const, defaultTenant: e.DEFAULT_TENANT, defaultUser: e.DEFAULT_USER, adminRole: e.AUTH_ADMIN_ROLE },
  );

function usesJwt(e: AuthVariables): boolean {
  return Boolean(e.AUTH_JWT_SECRET || e.AUTH_JWKS_URL);
}

/** Settings that would leave the server open to anyone who can reach it. */
function authProblems(e: AuthVariables): string[] {
  if (e.AUTH_JWT_SECRET && e.AUTH_JWKS_URL) return ['AUTH_JWT_SECRET and AUTH_JWKS_URL: set one of them, not both'];
  const problems: string[] = [];
  if (!usesJwt(e) && !isLoopback(e.HOST) && !e.ALLOW_HEADER_AUTH) {
    problems.push(
      `HOST: ${e.HOST} is reachable from other machines, and without JWT auth anyone there could claim any user (X-User-Id, X-Roles): set AUTH_JWT_SECRET or AUTH_JWKS_URL, or ALLOW_HEADER_AUTH=true behind a proxy that sets those headers`,
    );
  }
  if (e.AUTH_JWKS_URL) {
    const url = new URL(e.AUTH_JWKS_URL);
    if (url.protocol !== 'https:' && !isLoopback(url.hostname)) problems.push('AUTH_JWKS_URL: must be https:// (plain http only on a loopback host)');
    if (!e.AUTH_JWT_ISSUER || !e.AUTH_JWT_AUDIENCE)
      problems.push('AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE: required with AUTH_JWKS_URL (a key set signs tokens for many services)');
  }
  return problems;
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
