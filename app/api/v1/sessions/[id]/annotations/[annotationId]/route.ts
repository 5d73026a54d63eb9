import { route } from "@/lib/http/route";
import { deleteAnnotation } from "@/lib/server/sessions/annotations";

export const dynamic = "force-dynamic";

/** Deletes an annotation (its author's, or any as an admin) → 204. */
export const DELETE = route<{ id: string; annotationId: string }>(
  { accept: ["api_key"], authorize: "notes.write" },
  async ({ prisma, params, principal }) => {
    await deleteAnnotation(principal, { sessionId: params.id, annotationId: params.annotationId }, prisma);
    return new Response(null, { status: 204 });
  },
);
