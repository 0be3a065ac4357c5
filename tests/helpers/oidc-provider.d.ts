// oidc-provider ships no type declarations; this declares the part of its API the test peer uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface OidcAccount {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export interface KoaContextLike {
    oidc: { params?: Record<string, unknown> };
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    readonly Grant: new (init: { accountId: string; clientId: string }) => Grant;
    on(event: string, listener: (ctx: KoaContextLike, ...rest: unknown[]) => void): this;
  }
}
