import { route } from "@/lib/http/route";
import { addAnnotation, AnnotationBody, listAnnotations } from "@/lib/server/sessions/annotations";

export const dynamic = "force-dynamic";

/** A session's annotations, oldest first: `{ annotations: [{ id, seq, label, score, comment, author, createdAt }] }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ annotations: await listAnnotations(principal, { sessionId: params.id }, prisma) });
});

/**
 * `{ seq?, label?, score?, comment? }` (at least one of the last three; `seq`: the step, else the whole session)
 * adds an annotation signed by the key's user → 201 `{ annotation }`.
 */
export const POST = route<{ id: string }, undefined, typeof AnnotationBody>(
  { accept: ["api_key"], authorize: "notes.write", body: AnnotationBody },
  async ({ prisma, params, principal, body }) => {
    const annotation = await addAnnotation(principal, { ...body, sessionId: params.id }, prisma);
    return Response.json({ annotation }, { status: 201 });
  },
);
