import { createGraphQLError, type CORSOptions, type Plugin } from 'graphql-yoga';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { CSRF_HEADER, type OriginPolicy } from '../http/origin-policy.js';
import { httpStatusOf } from '../errors.js';

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
 * Refuses a request a browser sends without a preflight (form posts, text/plain, multipart, plain
 * GET) unless it carries the CSRF header: any page could send those with the caller's cookies or
 * local identity. (Requests with a foreign `Origin` are refused before they reach GraphQL.)
 */
export function browserSafetyPlugins(): Plugin[] {
  const csrf = useCSRFPrevention({ requestHeaders: [CSRF_HEADER] });
  return [
    {
      onRequestParse(payload) {
        try {
          return (csrf.onRequestParse as (p: typeof payload) => void)(payload);
        } catch {
          throw createGraphQLError(`Send GraphQL requests as application/json, or add the ${CSRF_HEADER} header (required for GET and multipart requests)`, {
            extensions: { code: 'FORBIDDEN', http: { status: httpStatusOf('FORBIDDEN') } },
          });
        }
      },
    },
  ];
}
