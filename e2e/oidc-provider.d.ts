/**
 * The few parts of `oidc-provider` (which ships no types) that the first-run and
 * single sign-on spec uses to run a real OpenID Connect issuer on this machine.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  type Account = { accountId: string; claims: () => Record<string, unknown> };
  type Configuration = {
    clients: Record<string, unknown>[];
    cookies?: { keys: string[] };
    claims?: Record<string, string[]>;
    findAccount: (ctx: unknown, sub: string) => Account | Promise<Account>;
    interactions?: { url: (ctx: unknown, interaction: { uid: string }) => string };
    features?: Record<string, unknown>;
  };

  class Grant {
    constructor(options: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(
      req: IncomingMessage,
      res: ServerResponse,
    ): Promise<{ uid: string; params: Record<string, unknown> }>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>): Promise<void>;
  }
}
