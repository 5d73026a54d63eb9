import { request, type FullConfig } from "@playwright/test";

export const ADMIN = { email: "admin@e2e.test", password: "e2e-admin-password" };
/** Kept per server port: `npm test` runs the suite as two shards, each against its own server. */
export const ADMIN_STATE = `test-results/admin-state-${process.env.E2E_PORT ?? 3100}.json`;

/** Signs in as the admin the e2e server made at start and keeps the session cookie for every test. */
export default async function globalSetup(config: FullConfig) {
  const baseURL = config.projects[0]?.use.baseURL;
  const context = await request.newContext({ baseURL });
  const response = await context.post("/api/auth/sign-in/email", { data: ADMIN });
  if (!response.ok()) throw new Error(`e2e sign-in failed: HTTP ${response.status()} ${await response.text()}`);
  await context.storageState({ path: ADMIN_STATE });
  await context.dispose();
}
