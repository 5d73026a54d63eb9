/**
 * Who is acting. Every operation in lib/server takes one and checks it with
 * `authorize` (authz.ts). The adapters resolve it: `currentPrincipal()` for
 * pages and server actions, the API key for /api/v1 (both in lib/http).
 */
export type Role = "viewer" | "analyst" | "admin";

export interface Principal {
  kind: "user" | "api_key" | "system";
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
