"use server";

import { validatedAction } from "@/lib/http/action";
import { PlaygroundRunInput, runPlayground } from "@/lib/server/playground/playground";

/** Sends a recorded model call again, as edited on the playground page, to the chosen model endpoint. */
export const runPlaygroundAction = validatedAction(PlaygroundRunInput, runPlayground);
