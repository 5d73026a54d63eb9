"use server";

import { z } from "zod";
import { validatedAction } from "@/lib/http/action";
import {
  addReviewItems,
  CompleteReviewInput,
  completeReview,
  createReviewQueue,
  deleteReviewQueue,
  ReviewItemsBody,
  ReviewQueueBody,
  reviewQueueChoices,
  updateReviewItem,
} from "@/lib/server/reviews/reviews";

const id = z.string().min(1).max(64);

/** Makes a review queue signed by the user. */
export const createReviewQueueAction = validatedAction(ReviewQueueBody, createReviewQueue);

/** Deletes a review queue (its maker's, or any as an admin). */
export const deleteReviewQueueAction = validatedAction(z.object({ queueId: id }), deleteReviewQueue);

/** The queues a session may be added to, and the team members to assign it to. */
export const reviewQueueChoicesAction = validatedAction(z.object({ sessionId: id }), reviewQueueChoices);

/** Adds sessions to a queue (each once), assigned to a team member or to no one. */
export const addToReviewQueueAction = validatedAction(
  z.object({ queueId: id, ...ReviewItemsBody.shape }),
  addReviewItems,
);

/** Writes the reviewer's annotation and marks the item done. */
export const completeReviewAction = validatedAction(CompleteReviewInput, completeReview);

/** Skips an item (or reopens it: pending). */
export const setReviewStatusAction = validatedAction(
  z.object({ queueId: id, itemId: id, status: z.enum(["pending", "skipped"]) }),
  updateReviewItem,
);
