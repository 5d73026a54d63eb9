"use server";

import { z } from "zod";
import { validatedAction } from "@/lib/http/action";
import { addAnnotation, AnnotationInput, deleteAnnotation } from "@/lib/server/sessions/annotations";

/** Adds a label, a score and/or a comment to a session or one of its steps, signed by the user. */
export const addAnnotationAction = validatedAction(AnnotationInput, addAnnotation);

/** Deletes one of the user's annotations (an admin: any). */
export const deleteAnnotationAction = validatedAction(
  z.object({ sessionId: z.string().min(1).max(64), annotationId: z.string().min(1).max(64) }),
  deleteAnnotation,
);
