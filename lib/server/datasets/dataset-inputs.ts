/** What the dataset operations accept: every outside byte is checked here, before anything is read or written. */
import { z } from "zod";
import { SessionFilterQuery } from "@/lib/session-list/query";
import { refuseNul } from "../replays/replay-inputs";

/** The most sessions one request names (to add, remove or create with). */
export const MAX_IDS_PER_REQUEST = 1000;
/** The most sessions a dataset holds. */
export const MAX_DATASET_SESSIONS = 5000;
/** Members per page of a dataset, by default and at most. */
export const MEMBERS_PAGE = 50;
export const MEMBERS_PAGE_MAX = 500;

const Id = z.string().trim().min(1, "An id is empty.").max(64, "An id is at most 64 characters.");
export const DatasetId = z.string().min(1, "Name the dataset.").max(64, "A dataset id is at most 64 characters.");

const Name = z.string().trim().min(1, "Name the dataset.").max(200, "A name is at most 200 characters.");
const Description = z.string().trim().max(2000, "A description is at most 2000 characters.");

export const SessionIdList = z
  .array(Id, "sessionIds must be a list of session ids.")
  .min(1, "Name at least one session.")
  .max(MAX_IDS_PER_REQUEST, `At most ${MAX_IDS_PER_REQUEST} sessions per request.`);

/** A JSON body may write the list's filters as numbers and booleans too: each is read as the URL spells it. */
const FilterBody = z.preprocess(
  (v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, typeof x === "number" || typeof x === "boolean" ? String(x) : x]),
        )
      : v,
  SessionFilterQuery,
);

export const CreateDatasetInput = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    /** The sessions it holds; or `filter`; or neither (an empty dataset, filled later). */
    sessionIds: SessionIdList.optional(),
    /** The session list's filters: the sessions they match now are frozen into it (up to the cap). */
    filter: FilterBody.optional(),
  })
  .superRefine((v, ctx) => refuseNul({ name: v.name, description: v.description }, ctx))
  .refine((v) => !(v.sessionIds && v.filter), {
    message: 'Send either "sessionIds" or "filter", not both.',
    path: ["filter"],
  });
export type CreateDatasetInput = z.infer<typeof CreateDatasetInput>;

export const UpdateDatasetInput = z
  .strictObject({
    datasetId: DatasetId,
    name: Name.optional(),
    /** An empty description clears it. */
    description: Description.optional(),
  })
  .superRefine((v, ctx) => refuseNul({ name: v.name, description: v.description }, ctx))
  .refine((v) => v.name !== undefined || v.description !== undefined, {
    message: 'Send "name" or "description" to change.',
    path: ["name"],
  });
export type UpdateDatasetInput = z.infer<typeof UpdateDatasetInput>;

export const DatasetRef = z.strictObject({ datasetId: DatasetId });
export type DatasetRef = z.infer<typeof DatasetRef>;

export const DatasetPageInput = z.strictObject({
  datasetId: DatasetId,
  offset: z.coerce
    .number("offset must be a number.")
    .int("offset must be a whole number.")
    .min(0, "offset must be 0 or more.")
    .max(MAX_DATASET_SESSIONS, `offset is at most ${MAX_DATASET_SESSIONS}.`)
    .default(0),
  limit: z.coerce
    .number("limit must be a number.")
    .int("limit must be a whole number.")
    .min(1, "limit must be 1 or more.")
    .max(MEMBERS_PAGE_MAX, `limit is at most ${MEMBERS_PAGE_MAX}.`)
    .default(MEMBERS_PAGE),
});
export type DatasetPageInput = z.infer<typeof DatasetPageInput>;

export const DatasetMembersInput = z.strictObject({ datasetId: DatasetId, sessionIds: SessionIdList });
export type DatasetMembersInput = z.infer<typeof DatasetMembersInput>;

/** The API's bodies: the dataset comes from the path. */
export const MembersBody = z.strictObject({ sessionIds: SessionIdList });
export const UpdateBody = z.strictObject({ name: Name.optional(), description: Description.optional() });
export const PageQuery = DatasetPageInput.omit({ datasetId: true });
