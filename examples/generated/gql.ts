/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "mutation ExampleCreateSession($name: String!) {\n  createSession(input: {name: $name}) {\n    __typename\n    ... on CreateSessionSuccess {\n      session {\n        id\n        name\n      }\n    }\n    ... on Error {\n      code\n      message\n    }\n  }\n}\n\nmutation ExampleSendMessage($sessionId: ID!, $content: String!) {\n  sendMessage(input: {sessionId: $sessionId, content: $content}) {\n    __typename\n    ... on SendMessagePayload {\n      turn {\n        id\n        status\n      }\n    }\n    ... on Error {\n      code\n      message\n    }\n  }\n}\n\nsubscription ExampleTurnEvents($turnId: ID!, $after: Int) {\n  turnEvents(turnId: $turnId, after: $after) {\n    __typename\n    ... on TurnEvent {\n      seq\n    }\n    ... on ContentEvent {\n      delta\n    }\n    ... on ToolCallEvent {\n      name\n    }\n    ... on ErrorEvent {\n      code\n      message\n    }\n    ... on FinalEvent {\n      status\n      content\n    }\n  }\n}": typeof types.ExampleCreateSessionDocument,
};
const documents: Documents = {
    "mutation ExampleCreateSession($name: String!) {\n  createSession(input: {name: $name}) {\n    __typename\n    ... on CreateSessionSuccess {\n      session {\n        id\n        name\n      }\n    }\n    ... on Error {\n      code\n      message\n    }\n  }\n}\n\nmutation ExampleSendMessage($sessionId: ID!, $content: String!) {\n  sendMessage(input: {sessionId: $sessionId, content: $content}) {\n    __typename\n    ... on SendMessagePayload {\n      turn {\n        id\n        status\n      }\n    }\n    ... on Error {\n      code\n      message\n    }\n  }\n}\n\nsubscription ExampleTurnEvents($turnId: ID!, $after: Int) {\n  turnEvents(turnId: $turnId, after: $after) {\n    __typename\n    ... on TurnEvent {\n      seq\n    }\n    ... on ContentEvent {\n      delta\n    }\n    ... on ToolCallEvent {\n      name\n    }\n    ... on ErrorEvent {\n      code\n      message\n    }\n    ... on FinalEvent {\n      status\n      content\n    }\n  }\n}": types.ExampleCreateSessionDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ExampleCreateSession($name: String!) {\n  createSession(input: {name: $name}) {\n    __typename\n    ... on CreateSessionSuccess {\n      session {\n        id\n        name\n      }\n    }\n    ... on Error {\n      code\n      message\n    }\n  }\n}\n\nmutation ExampleSendMessage($sessionId: ID!, $content: String!) {\n  sendMessage(input: {sessionId: $sessionId, content: $content}) {\n    __typename\n    ... on SendMessagePayload {\n      turn {\n        id\n        status\n      }\n    }\n    ... on Error {\n      code\n      message\n    }\n  }\n}\n\nsubscription ExampleTurnEvents($turnId: ID!, $after: Int) {\n  turnEvents(turnId: $turnId, after: $after) {\n    __typename\n    ... on TurnEvent {\n      seq\n    }\n    ... on ContentEvent {\n      delta\n    }\n    ... on ToolCallEvent {\n      name\n    }\n    ... on ErrorEvent {\n      code\n      message\n    }\n    ... on FinalEvent {\n      status\n      content\n    }\n  }\n}"): typeof import('./graphql.js').ExampleCreateSessionDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
