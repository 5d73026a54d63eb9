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
import {
  compareCandidates,
  CompareCandidatesInput,
  findSessionComparisonRow,
  getSessionComparisonPair,
  listSessionComparisonRows,
  SessionComparisonFindInput,
  SessionComparisonPairInput,
  SessionComparisonRowsInput,
} from "@/lib/server/sessions/session-compare";

/** One window of a session's step summaries (the steps and latency views load them as they scroll). */
export const sessionStepsAction = validatedAction(SessionWindowInput, listSessionSteps);

/** One window of a session's conversation. */
export const sessionConversationAction = validatedAction(SessionWindowInput, readSessionConversation);

/** One step whole, when it is opened. */
export const sessionStepAction = validatedAction(SessionStepInput, getSessionStep);

/** Search the whole session (first 200 matches, and how many). */
export const sessionSearchAction = validatedAction(SessionSearchInput, searchSession);

/** One window of two sessions' comparison rows under a filter. */
export const sessionComparisonRowsAction = validatedAction(SessionComparisonRowsInput, listSessionComparisonRows);

/** A pair's position under a filter, or the next / previous change from it (j / k), in two sessions' comparison. */
export const sessionComparisonFindAction = validatedAction(SessionComparisonFindInput, findSessionComparisonRow);

/** Both sides of one aligned pair of two sessions, for the detail panel. */
export const sessionComparisonPairAction = validatedAction(SessionComparisonPairInput, getSessionComparisonPair);

/** Sessions the "Compare with…" picker offers (the same agent's latest, or those a search finds). */
export const compareCandidatesAction = validatedAction(CompareCandidatesInput, compareCandidates);
