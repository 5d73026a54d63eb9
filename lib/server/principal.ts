/**
 * Who is acting. Every operation in lib/server takes one and checks it with
 * `authorize` (authz.ts). The adapters resolve it with `resolvePrincipal`
 * (lib/http/principal.ts): the session for pages, server actions and the
 * dashboard's routes, an API key for /api/v1 and the trace exporters.
 */
export type Role = "viewer" | "analyst" | "admin";

export interface Principal {
  /** `replay_token`: the agent driving one agent-driven replay (its token opens only that replay's agent endpoints). */
  kind: "user" | "api_key" | "system" | "replay_token";
  /** For `replay_token`: the one replay the token opens. */
  replayId?: string;
  userId: string | null;
  /** The name recorded as author (fixtures, approvals, reports, replays). */
  name: string;
  role: Role;
  /** A read-only principal may use viewer-level permissions only, whatever its role. */
  readOnly: boolean;
}

/** An admin user with no account row: for tests and benches that call operations directly. */
export function localAdmin(name: string): Principal {
  return { kind: "user", userId: null, name, role: "admin", readOnly: false };
}

/** Work the server does on its own behalf (background runs started by someone earlier). */
export function systemPrincipal(name = "system"): Principal {
  return { kind: "system", userId: null, name, role: "admin", readOnly: false };
}
