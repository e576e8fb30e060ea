import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config/config.js';
import { UnauthenticatedError } from '../errors.js';
import type { AgentContext } from './agent-context.js';

/** Reads a request header (or a websocket connection_init field) by case-insensitive name. */
export type HeaderLookup = (name: string) => string | undefined;

export type Identify = (header: HeaderLookup) => Promise<AgentContext>;

const MAX_HEADER_VALUE = 512;

/**
 * Builds the AgentContext of a request. With JWT auth configured, identity (user, tenant, admin)
 * comes only from a verified bearer token; otherwise (local development) from X-User-Id and
 * X-Tenant-Id. Non-identity hints (session, model, eval flag, client id, added instruction) are
 * read from headers in both modes.
 */
export function createIdentify(auth: Config['auth']): Identify {
  const verify = auth.mode === 'jwt' ? tokenVerifier(auth) : undefined;
  return async (header) => {
    const hints = {
      sessionId: clean(header('x-session-id')),
      defaultModel: clean(header('x-model-name')),
      agentSchemaUri: clean(header('x-agent-schema')),
      isEval: /^(1|true|yes)$/i.test(header('x-is-eval') ?? ''),
      clientId: clean(header('x-client-id')),
      addedInstruction: clean(header('x-added-instruction'), 4000),
    };
    if (auth.mode === 'headers') {
      const roles = (header('x-roles') ?? '').split(',').map((r) => r.trim());
      return {
        ...hints,
        // No identity and no DEFAULT_USER: anonymous (null), never a made-up id.
        userId: clean(header('x-user-id')) ?? auth.defaultUser ?? null,
        tenantId: clean(header('x-tenant-id')) ?? auth.defaultTenant,
        isAdmin: roles.includes(auth.adminRole),
        authMode: 'headers',
      };
    }
    const claims = await verify!(bearerToken(header('authorization')));
    if (typeof claims.sub !== 'string' || claims.sub === '') {
      throw new UnauthenticatedError('Token has no subject (sub) claim');
    }
    const tenant = claims[auth.tenantClaim];
    const hasTenant = typeof tenant === 'string' && tenant !== '';
    // A token minted for another purpose must not land in the default tenant by accident.
    if (!hasTenant && !auth.tenantOptional) {
      throw new UnauthenticatedError(`Token has no tenant (${auth.tenantClaim}) claim`);
    }
    return {
      ...hints,
      userId: claims.sub,
      tenantId: hasTenant ? tenant : auth.defaultTenant,
      isAdmin: rolesOf(claims).includes(auth.adminRole),
      authMode: 'jwt',
      userEmail: clean(stringClaim(claims.email)),
      userName: clean(stringClaim(claims.name) ?? stringClaim(claims.preferred_username)),
    };
  };
}

function tokenVerifier(auth: Extract<Config['auth'], { mode: 'jwt' }>) {
  const key: Uint8Array | JWTVerifyGetKey = auth.secret ? new TextEncoder().encode(auth.secret) : createRemoteJWKSet(new URL(auth.jwksUrl!));
  const options = {
    issuer: auth.issuer,
    audience: auth.audience,
    algorithms: auth.secret ? ['HS256'] : undefined,
    // A token that never expires cannot be taken back.
    requiredClaims: ['exp', ...(auth.issuer ? ['iss'] : []), ...(auth.audience ? ['aud'] : [])],
  };
  return async (token: string): Promise<JWTPayload> => {
    try {
      const { payload } = await jwtVerify(token, key as Uint8Array, options);
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new UnauthenticatedError('Token expired');
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        throw new UnauthenticatedError(error.reason === 'missing' ? `Token has no "${error.claim}" claim` : `Token claim "${error.claim}" is not valid`);
      }
      throw new UnauthenticatedError('Invalid token');
    }
  };
}

/** When the bearer token of an already identified caller expires (ms since epoch), if it carries one. */
export function credentialsExpireAt(header: HeaderLookup): number | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(header('authorization') ?? '')?.[1];
  if (!token) return undefined;
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function bearerToken(value: string | undefined): string {
  const match = /^Bearer\s+(\S+)$/i.exec(value ?? '');
  if (!match) throw new UnauthenticatedError('Missing bearer token (Authorization: Bearer <JWT>)');
  return match[1]!;
}

function rolesOf(claims: JWTPayload): string[] {
  const roles = Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : [];
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
  return [...roles, ...scopes];
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function clean(value: string | undefined, max = MAX_HEADER_VALUE): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, max) : null;
}
