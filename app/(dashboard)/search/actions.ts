"use server";

import { z } from "zod";
import { searchByName } from "@/lib/db/search";
import { validatedAction } from "@/lib/http/action";

const SearchInput = z.object({ q: z.string().max(200) });

/** The command palette's lookup: read-only, by name or id, a few of each kind. */
export const searchAction = validatedAction(SearchInput, (input, prisma) => searchByName(prisma, input.q));
