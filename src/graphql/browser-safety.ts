import { createGraphQLError, type CORSOptions, type Plugin } from 'graphql-yoga';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { CSRF_HEADER, type OriginPolicy } from '../http/origin-policy.js';

/**
 * CORS for the allow-list only: other sites get no CORS headers, so browsers neither send their
 * preflighted (JSON) requests nor let them read a response.
 */
export function corsFor(policy: OriginPolicy): (request: Request) => CORSOptions {
  return (request) => {
    const origin = request.headers.get('origin');
    return origin && policy.crossSite.includes(origin) ? { origin: [origin], credentials: true, methods: ['GET', 'POST'] } : false;
  };
}

/**
 * Refuses requests a page of another site could have made with the caller's identity: a foreign
 * `Origin`, or a request the browser sends without a preflight (form posts, multipart, plain GET)
 * that lacks the CSRF header.
 */
export function browserSafetyPlugins(policy: OriginPolicy): Plugin[] {
  const csrf = useCSRFPrevention({ requestHeaders: [CSRF_HEADER] });
  return [
    {
      onRequest({ request, fetchAPI, endResponse }) {
        if (policy.allows(request.headers.get('origin') ?? undefined, request.headers.get('host') ?? undefined)) return;
        endResponse(
          new fetchAPI.Response(
            JSON.stringify({ errors: [{ message: 'Requests from this origin are not allowed (CORS_ORIGINS)', extensions: { code: 'FORBIDDEN' } }] }),
            { status: 403, headers: { 'content-type': 'application/json' } },
          ),
        );
      },
    },
    {
      onRequestParse(payload) {
        try {
          return (csrf.onRequestParse as (p: typeof payload) => void)(payload);
        } catch {
          throw createGraphQLError(`Send GraphQL requests as application/json, or add the ${CSRF_HEADER} header (required for GET and multipart requests)`, {
            extensions: { code: 'FORBIDDEN', http: { status: 403 } },
          });
        }
      },
    },
  ];
}
