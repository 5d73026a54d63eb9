import { auth } from "@/lib/auth/auth";
import { errorResponse } from "@/lib/http/api";

export const dynamic = "force-dynamic";

/**
 * Better Auth's routes: sign-in (email, SSO), sign-out, session, password change.
 * What Better Auth throws (its rate limiter reads the database before anything)
 * is answered as the API answers it: the database out of reach is a 503 with Retry-After.
 */
async function handle(request: Request): Promise<Response> {
  try {
    return await (await auth()).handler(request);
  } catch (error) {
    return errorResponse(error);
  }
}

export const GET = handle;
export const POST = handle;
