"use server";

import { validatedAction } from "@/lib/http/action";
import {
  getSessionStep,
  listSessionSteps,
  readSessionConversation,
  searchSession,
  SessionSearchInput,
  SessionStepInput,
  SessionWindowInput,
} from "@/lib/server/sessions/session-pages";

/** One window of a session's step summaries (the steps and latency views load them as they scroll). */
export const sessionStepsAction = validatedAction(SessionWindowInput, listSessionSteps);

/** One window of a session's conversation. */
export const sessionConversationAction = validatedAction(SessionWindowInput, readSessionConversation);

/** One step whole, when it is opened. */
export const sessionStepAction = validatedAction(SessionStepInput, getSessionStep);

/** Search the whole session (first 200 matches, and how many). */
export const sessionSearchAction = validatedAction(SessionSearchInput, searchSession);
