/**
 * What each role may do: one table, minimum role per permission. Every
 * operation in lib/server calls `authorize` once, first.
 */
import { AppError } from "@/lib/errors";
import type { Principal, Role } from "./principal";

export const PERMISSIONS = {
  "sessions.read": "viewer",
  "sessions.import": "analyst",
  /** Label, score and comment on sessions and their steps, and comment on reports; delete one's own (an admin: any). */
  "notes.write": "analyst",
  "policies.read": "viewer",
  "policies.write": "analyst",
  "replays.read": "viewer",
  "replays.run": "analyst",
  "checks.read": "viewer",
  "checks.write": "analyst",
  "experiments.read": "viewer",
  "experiments.run": "analyst",
  /** Datasets: named, frozen lists of sessions (an experiment's cohort). Any analyst may change any. */
  "datasets.read": "viewer",
  "datasets.write": "analyst",
  "coverage.read": "viewer",
  "investigations.read": "viewer",
  "investigations.run": "analyst",
  "reports.read": "viewer",
  "reports.write": "analyst",
  "shares.manage": "analyst",
  "executors.read": "analyst",
  "executors.manage": "admin",
  "api_keys.manage": "admin",
  "jobs.manage": "admin",
  /** Make, list and revoke one's own API keys (they act with one's own role). */
  "api_keys.own": "viewer",
  "users.manage": "admin",
  "audit.read": "admin",
  "clusters.read": "viewer",
  /** Rename, merge and split failure clusters. */
  "clusters.write": "analyst",
  /** The price table that turns recorded tokens into cost (lib/prices). */
  "prices.read": "viewer",
  "prices.manage": "admin",
} as const satisfies Record<string, Role>;

export type Permission = keyof typeof PERMISSIONS;

const RANK: Record<Role, number> = { viewer: 0, analyst: 1, admin: 2 };

/** Whether the principal may use the permission (no throw). */
export function can(principal: Principal, permission: Permission): boolean {
  const needed: Role = PERMISSIONS[permission];
  if (principal.readOnly && needed !== "viewer") return false;
  return RANK[principal.role] >= RANK[needed];
}

/** Throws `forbidden` unless the principal may use the permission. */
export function authorize(principal: Principal, permission: Permission): void {
  if (can(principal, permission)) return;
  const needed: Role = PERMISSIONS[permission];
  throw new AppError(
    "forbidden",
    principal.readOnly && needed !== "viewer"
      ? `${principal.name} has read-only access; this needs the ${needed} role.`
      : `${principal.name} (${principal.role}) may not do this; it needs the ${needed} role.`,
  );
}
