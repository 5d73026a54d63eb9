import { auth } from "@/lib/auth/auth";

export const dynamic = "force-dynamic";

/** Better Auth's routes: sign-in (email, SSO), sign-out, session, password change. */
async function handle(request: Request): Promise<Response> {
  return (await auth()).handler(request);
}

export const GET = handle;
export const POST = handle;
