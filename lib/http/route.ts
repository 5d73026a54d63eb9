/**
 * The one wrapper for route handlers (every route.ts under app/ but Better Auth's
 * own; scripts/routes.test.ts checks): it resolves who is acting (the
 * credentials the route accepts), checks a permission the route must have
 * before its body is read, parses the query and the JSON body with their
 * schemas when given, hands them to the handler (which calls one operation)
 * and maps any failure to the one answer shape,
 * `{ error: { code, message, issues } }`, through toAppError/jsonError. A route
 * whose protocol answers errors its own way (OTLP's google.rpc.Status, a share
 * link's plain text) passes `answerError`.
 */
import type { z } from "zod";
import { db, type Db } from "@/lib/db";
import { authorize, type Permission } from "@/lib/server/authz";
import type { Principal } from "@/lib/server/principal";
import { AppError } from "@/lib/errors";
import { errorResponse, readJson, readQuery } from "./api";
import { checkHost } from "./host";
import { resolvePrincipal, type Credential } from "./principal";

type Schema = z.ZodType | undefined;
type Parsed<S extends Schema> = S extends z.ZodType ? z.infer<S> : undefined;

export interface RouteOptions<C, Q extends Schema, B extends Schema> {
  /** The credentials that may act here (route.ts files under /api/v1 take an API key; the dashboard's own a session). */
  accept: readonly Credential[];
  /** The share token in the route's path, for `share_token`. */
  shareToken?: (params: C) => string;
  /** The replay in the route's path, for `replay_token`. */
  replayId?: (params: C) => string;
  /**
   * A permission checked as soon as the principal is known, before the body is read (a viewer's trace export
   * is refused without reading it); the operation still authorizes what it does.
   */
  authorize?: Permission;
  query?: Q;
  body?: B;
  /** How this route answers a failure; by default the JSON error of its AppError. */
  answerError?: (error: unknown, request: Request) => Response;
  /**
   * The route's path is left out of proxy.ts (its `config.matcher`), so the proxy's Host check (DNS rebinding)
   * is made here, before anything else. Every method of such a route sets it.
   */
  outsideProxy?: true;
}

export interface RouteContext<C, Q extends Schema, B extends Schema> {
  request: Request;
  params: C;
  principal: Principal;
  prisma: Db;
  query: Parsed<Q>;
  body: Parsed<B>;
}

type NextContext<C> = { params: Promise<C> };

export function route<C = Record<string, never>, Q extends Schema = undefined, B extends Schema = undefined>(
  options: RouteOptions<C, Q, B>,
  handler: (ctx: RouteContext<C, Q, B>) => Promise<Response>,
) {
  const answerError = options.answerError ?? errorResponse;
  return async (request: Request, context: NextContext<C>): Promise<Response> => {
    try {
      if (options.outsideProxy) {
        const host = checkHost(request.headers);
        if (!host.ok) throw new AppError("forbidden", host.reason);
      }
      const params = await context.params;
      const prisma = await db();
      const principal = await resolvePrincipal(request, {
        accept: options.accept,
        prisma,
        shareToken: options.shareToken?.(params),
        replayId: options.replayId?.(params),
      });
      if (options.authorize) authorize(principal, options.authorize);
      const query = (options.query ? readQuery(request, options.query) : undefined) as Parsed<Q>;
      const body = (options.body ? await readJson(request, options.body) : undefined) as Parsed<B>;
      return await handler({ request, params, principal, prisma, query, body });
    } catch (error) {
      return answerError(error, request);
    }
  };
}

/**
 * A route anyone may call (the health check, a format's schema): no
 * principal and no database opened for it; failures answer as `route`'s do
 * unless the route says otherwise.
 */
export function publicRoute<C = Record<string, never>>(
  handler: (ctx: { request: Request; params: C }) => Response | Promise<Response>,
  answerError: (error: unknown, request: Request) => Response = errorResponse,
) {
  return async (request: Request, context?: NextContext<C>): Promise<Response> => {
    try {
      return await handler({ request, params: (await context?.params) as C });
    } catch (error) {
      return answerError(error, request);
    }
  };
}
