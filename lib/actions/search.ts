"use server";

import { validatedAction } from "@/lib/http/action";
import { SearchInput, search } from "@/lib/server/sessions/search";

/** The command palette's lookup: read-only, by name or id, a few of each kind. */
export const searchAction = validatedAction(SearchInput, search);
