import { env } from "@/lib/env";

/**
 * The key's variable must look like a key (…_API_KEY, …_TOKEN, …_KEY) and may
 * not be one of Branchpoint's own settings: otherwise anyone at the dashboard
 * could have the server send e.g. DATABASE_URL or BRANCHPOINT_API_KEY as a
 * bearer token to a host they allowed.
 */
export function keyEnvNameProblem(
  name: string,
  target: { what: string; whose: string; users: string } = {
    what: "a model endpoint",
    whose: "the model provider's",
    users: "model endpoints",
  },
): string | null {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) return "The NAME of an environment variable (A–Z, 0–9, _), not the key itself.";
  if (name.startsWith("BRANCHPOINT_") || ["DATABASE_URL", "TEST_POSTGRES_URL"].includes(name)) {
    return `${name} is one of Branchpoint's own settings; name the variable that holds ${target.whose} key.`;
  }
  if (!/(_API_KEY|_KEY|_TOKEN)$/.test(name))
    return `Only variables named like a key (…_API_KEY, …_KEY, …_TOKEN) can be sent to ${target.what}.`;
  if (!env().BRANCHPOINT_MODEL_KEY_VARS.includes(name))
    return `${name} is not on the server's list of key variables ${target.users} may use; an administrator adds it to BRANCHPOINT_MODEL_KEY_VARS.`;
  return null;
}
