/** The command palette's lookup: sessions, policies, replays, experiments and reports by name or id. Read-only. */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { searchByName, type SearchHit } from "@/lib/db/search";
import { authorize } from "../authz";
import type { Principal } from "../principal";

export const SearchInput = z.object({ q: z.string().max(200) });
export type SearchInput = z.infer<typeof SearchInput>;

export async function search(principal: Principal, input: SearchInput, prisma: Db): Promise<SearchHit[]> {
  // Everything it returns is what the session list and the other lists show a viewer.
  authorize(principal, "sessions.read");
  return searchByName(prisma, input.q);
}
