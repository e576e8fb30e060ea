/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Stable machine-readable failure codes: of Error results, of `extensions.code` in GraphQL errors, and of turn and job errors. */
export type ErrorCode =
  | 'ALREADY_DECIDED'
  | 'BAD_USER_INPUT'
  | 'FORBIDDEN'
  | 'INTERNAL'
  | 'INTERRUPTED'
  | 'LIMIT_EXCEEDED'
  | 'MAX_ITERATIONS'
  | 'MODEL_ERROR'
  | 'NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'QUERY_SYNTAX'
  | 'RATE_LIMITED'
  | 'SESSION_BUSY'
  | 'TOOL_FAILED'
  | 'UNAUTHENTICATED'
  | 'VALIDATION_FAILED';

export type TurnStatus =
  | 'AWAITING_APPROVAL'
  | 'CANCELLED'
  | 'COMPLETED'
  | 'ERROR'
  | 'INTERRUPTED'
  | 'MAX_ITERATIONS'
  | 'RUNNING'
  | 'TOOL_CALLS';

export type ExampleCreateSessionMutationVariables = Exact<{
  name: string;
}>;


export type ExampleCreateSessionMutation = { createSession:
    | { __typename: 'CreateSessionSuccess', session: { id: string, name: string } }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type ExampleSendMessageMutationVariables = Exact<{
  sessionId: string;
  content: string;
}>;


export type ExampleSendMessageMutation = { sendMessage:
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RateLimitedError', code: ErrorCode, message: string }
    | { __typename: 'SendMessagePayload', turn: { id: string, status: TurnStatus } }
    | { __typename: 'SessionBusyError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type ExampleTurnEventsSubscriptionVariables = Exact<{
  turnId: string;
  after?: number | null | undefined;
}>;


export type ExampleTurnEventsSubscription = { turnEvents:
    | { __typename: 'ActionEvent', seq: number }
    | { __typename: 'ApprovalNeededEvent', seq: number }
    | { __typename: 'ApprovalResultEvent', seq: number }
    | { __typename: 'ChildEvent', seq: number }
    | { __typename: 'ContentEvent', seq: number, delta: string }
    | { __typename: 'ErrorEvent', seq: number, code: string, message: string }
    | { __typename: 'FinalEvent', seq: number, status: TurnStatus, content: string | null }
    | { __typename: 'ModelRequestEvent', seq: number }
    | { __typename: 'ResumeEvent', seq: number }
    | { __typename: 'SourcesEvent', seq: number }
    | { __typename: 'ThoughtEvent', seq: number }
    | { __typename: 'ToolCallEvent', seq: number, name: string }
    | { __typename: 'ToolResultEvent', seq: number }
   };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const ExampleCreateSessionDocument = new TypedDocumentString(`
    mutation ExampleCreateSession($name: String!) {
  createSession(input: {name: $name}) {
    __typename
    ... on CreateSessionSuccess {
      session {
        id
        name
      }
    }
    ... on Error {
      code
      message
    }
  }
}
    `) as unknown as TypedDocumentString<ExampleCreateSessionMutation, ExampleCreateSessionMutationVariables>;
export const ExampleSendMessageDocument = new TypedDocumentString(`
    mutation ExampleSendMessage($sessionId: ID!, $content: String!) {
  sendMessage(input: {sessionId: $sessionId, content: $content}) {
    __typename
    ... on SendMessagePayload {
      turn {
        id
        status
      }
    }
    ... on Error {
      code
      message
    }
  }
}
    `) as unknown as TypedDocumentString<ExampleSendMessageMutation, ExampleSendMessageMutationVariables>;
export const ExampleTurnEventsDocument = new TypedDocumentString(`
    subscription ExampleTurnEvents($turnId: ID!, $after: Int) {
  turnEvents(turnId: $turnId, after: $after) {
    __typename
    ... on TurnEvent {
      seq
    }
    ... on ContentEvent {
      delta
    }
    ... on ToolCallEvent {
      name
    }
    ... on ErrorEvent {
      code
      message
    }
    ... on FinalEvent {
      status
      content
    }
  }
}
    `) as unknown as TypedDocumentString<ExampleTurnEventsSubscription, ExampleTurnEventsSubscriptionVariables>;