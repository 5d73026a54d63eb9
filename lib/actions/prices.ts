"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { addPriceFromForm, PriceForm } from "@/lib/server/prices/prices";

/** Adds a version of a price from Settings → Prices and refreshes the page. */
export const addPriceAction = validatedAction(PriceForm, async (principal, input, prisma) => {
  const added = await addPriceFromForm(principal, input, prisma);
  revalidatePath("/settings/prices");
  return added;
});
