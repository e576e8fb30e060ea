import { getOperationAST, parse } from 'graphql';
import { createGraphQLError, type CORSOptions, type GraphQLParams, type Plugin } from 'graphql-yoga';
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

const refusal = () =>
  createGraphQLError(
    `Send GraphQL requests as application/json, or add the ${CSRF_HEADER} header (required for GET mutations and subscriptions, and multipart requests)`,
    {
      extensions: { code: 'FORBIDDEN', http: { status: httpStatusOf('FORBIDDEN') } },
    },
  );

/**
 * Refuses a request a browser sends without a preflight (form posts, text/plain, multipart) unless
 * it carries the CSRF header: any page could send those with the caller's cookies or local
 * identity. A plain GET may carry a query (urql's and Apollo's GET queries send no header): a query
 * changes nothing and a cross-site page cannot read its answer; a GET mutation or subscription
 * still needs the header. (Requests with a foreign `Origin` are refused before they reach GraphQL.)
 */
export function browserSafetyPlugins(): Plugin[] {
  const csrf = useCSRFPrevention({ requestHeaders: [CSRF_HEADER] });
  return [
    {
      onRequestParse(payload) {
        try {
          (csrf.onRequestParse as (p: typeof payload) => void)(payload);
          return undefined;
        } catch {
          if (payload.request.method !== 'GET') throw refusal();
          return {
            onRequestParseDone({ requestParserResult }) {
              const all = Array.isArray(requestParserResult) ? requestParserResult : [requestParserResult];
              if (!all.every(isQuery)) throw refusal();
            },
          };
        }
      },
    },
  ];
}

/** Whether the operation a request names is a query; a document that does not parse is left to GraphQL to reject. */
function isQuery(params: GraphQLParams): boolean {
  if (!params.query) return false;
  try {
    return getOperationAST(parse(params.query), params.operationName)?.operation === 'query';
  } catch {
    return true;
  }
}
