import type { GraphiQLOptions } from 'graphql-yoga';
import type { Config } from '../config/config.js';
import { CSRF_HEADER } from '../http/origin-policy.js';

/** The example operations of the README, opened as GraphiQL's first tabs (a test keeps them in step). */
export const EXAMPLE_TABS: { query: string; variables?: Record<string, unknown> }[] = [
  {
    query: `# Who am I, and what can I talk to?
query Me {
  viewer { userId tenantId authMode defaultModel }
  sessions(first: 10) { edges { node { id name agent updatedAt } } }
  agents(first: 20) { edges { node { name description tools { name requiresApproval } } } }
}`,
  },
  {
    query: `# Starts a turn; copy turn.id into the "Follow" tab.
mutation Send($content: String!) {
  sendMessage(input: { content: $content }) {
    __typename
    ... on SendMessagePayload { turn { id status agent model } session { id name } }
    ... on Error { code message }
  }
}`,
    variables: { content: 'Hello! What can you do?' },
  },
  {
    query: `# Every step of a turn, live (resume with the last seq you saw as "after").
subscription Follow($turnId: ID!, $after: Int) {
  turnEvents(turnId: $turnId, after: $after) {
    __typename
    ... on TurnEvent { seq agent depth }
    ... on ContentEvent { delta }
    ... on ToolCallEvent { name arguments }
    ... on ToolResultEvent { name result isError }
    ... on ApprovalNeededEvent { approvalId name arguments }
    ... on ChildEvent { childAgent path event { __typename ... on ContentEvent { delta } } }
    ... on FinalEvent { status content usage { totalTokens } }
  }
}`,
    variables: { turnId: 'paste turn.id here', after: 0 },
  },
  {
    query: `# Gated tool calls waiting for a human, and the decision that resumes the turn.
query Pending {
  approvals(status: PENDING) { edges { node { id toolName arguments agentPath turn { id } } } }
}

mutation Decide($id: ID!, $approve: Boolean!, $reason: String) {
  decideApproval(id: $id, approve: $approve, reason: $reason) {
    __typename
    ... on DecideApprovalSuccess { approval { id status } }
    ... on Error { code message }
  }
}`,
    variables: { id: 'paste approval id here', approve: true, reason: 'looks right' },
  },
  {
    query: `# REM memory: write an entity, then find it again.
mutation Remember {
  upsertEntity(input: { key: "Sarah Chen", name: "Sarah Chen", entityType: "person", summary: "Head of finance; approves invoices over 10k", tags: ["finance"] }) {
    __typename
    ... on UpsertEntitySuccess { entity { key } }
    ... on Error { code message }
  }
}

query Recall {
  remQuery(query: "SEARCH \\"who approves invoices\\" LIMIT 5") { mode tookMs hits { key entityType score summary } }
}`,
  },
];

/**
 * GraphiQL's settings: the example tabs with headers for the configured auth mode. Subscriptions
 * run over SSE, which carries the header editor's identity with each operation as queries and
 * mutations do (GraphiQL puts none in a websocket's connection_init, so "Follow" there would run as
 * someone else than "Send", or anonymously). SSE is a GET: it needs the CSRF header, which GraphiQL,
 * a same-origin page, may send.
 */
export function graphiqlOptions(auth: Config['auth']): GraphiQLOptions {
  const headers = JSON.stringify(
    auth.mode === 'headers'
      ? { 'X-User-Id': auth.defaultUser ?? 'local-user', 'X-Tenant-Id': auth.defaultTenant }
      : { Authorization: 'Bearer <paste a token>' },
    null,
    2,
  );
  return {
    title: 'remgraph',
    subscriptionsProtocol: 'SSE',
    additionalHeaders: { [CSRF_HEADER]: 'graphiql' },
    defaultHeaders: headers,
    headers,
    defaultTabs: EXAMPLE_TABS.map((tab) => ({
      query: tab.query,
      variables: tab.variables ? JSON.stringify(tab.variables, null, 2) : null,
      headers,
    })),
  };
}

/**
 * Renders GraphiQL as one self-contained page (scripts and styles inlined, nothing fetched from a
 * CDN). The bundle is 9 MB, so it is loaded on the first visit rather than at start-up, and the page
 * is rendered once per server.
 */
export function offlineGraphiQL(): (options: GraphiQLOptions) => Promise<string> {
  let page: Promise<string> | undefined;
  return (options) => (page ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => renderGraphiQL(options)));
}
