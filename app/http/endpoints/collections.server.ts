/** Collections' rows of the endpoint table (docs/api.md "Collections"). */
import { z } from "zod";
import {
  CollectionIdSchema,
  CollectionItemsSchema,
  CollectionPageSchema,
  CreateCollectionSchema,
  MAX_BATCH,
  MAX_COLLECTIONS,
  MAX_ITEMS,
  MAX_NAME,
  RenameCollectionSchema,
} from "~/domain/collections/collections.server";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

const Collection = z.strictObject({
  collection_id: z.string().regex(/^col_/),
  name: z.string(),
  count: z.int().describe("tasks in it that are still in the gallery"),
  created_at: isoTime(),
  updated_at: isoTime(),
});
const Change = z.strictObject({ collection_id: z.string(), count: z.int() });
const NOT_FOUND = ["COLLECTION_NOT_FOUND", "INVALID_PARAMS"] as const;
const base = { method: "POST", tag: "Collections", auth: "user", source: "docs/api.md Collections" } as const;

export const COLLECTION_ENDPOINTS = {
  "/api/collections/create": {
    ...base,
    summary: "Create a collection",
    description: `A named set of your tasks. Names are 1–${MAX_NAME} characters (spaces folded), unique per user ignoring case; at most ${MAX_COLLECTIONS} collections.`,
    body: CreateCollectionSchema,
    response: Collection,
    successMessage: "collection created",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", "COLLECTION_NAME_TAKEN", "COLLECTION_LIMIT", ...COMMON],
    example: { name: "Lighthouses" },
  },
  "/api/collections/list": {
    ...base,
    summary: "List your collections",
    description: "Your collections, newest first, each with its count of tasks.",
    response: z.strictObject({ collections: z.array(Collection) }),
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/collections/add": {
    ...base,
    summary: "Add tasks to a collection",
    description: `Up to ${MAX_BATCH} of your tasks at once, all or none: an id that is not one of your tasks in the gallery refuses the batch with \`generation not found\`. A task already there is not added twice. At most ${MAX_ITEMS} tasks a collection.`,
    body: CollectionItemsSchema,
    response: Change.extend({ added: z.int() }),
    successMessage: "added to collection",
    errors: [...AUTH_ERRORS, ...NOT_FOUND, "GENERATION_NOT_FOUND", "COLLECTION_FULL", ...COMMON],
    example: { collection_id: "col_…", gen_ids: ["…"] },
  },
  "/api/collections/remove": {
    ...base,
    summary: "Remove tasks from a collection",
    description: "The tasks stay in your gallery and history; ids not in the collection are ignored.",
    body: CollectionItemsSchema,
    response: Change.extend({ removed: z.int() }),
    successMessage: "removed from collection",
    errors: [...AUTH_ERRORS, ...NOT_FOUND, "GENERATION_NOT_FOUND", ...COMMON],
    example: { collection_id: "col_…", gen_ids: ["…"] },
  },
  "/api/collections/rename": {
    ...base,
    summary: "Rename a collection",
    description: "Same rules as a new name.",
    body: RenameCollectionSchema,
    response: Collection,
    successMessage: "collection renamed",
    errors: [...AUTH_ERRORS, ...NOT_FOUND, "COLLECTION_NAME_TAKEN", ...COMMON],
    example: { collection_id: "col_…", name: "Lighthouses at dusk" },
  },
  "/api/collections/delete": {
    ...base,
    summary: "Delete a collection",
    description: "Removes the collection and its entries; the tasks themselves stay.",
    body: CollectionIdSchema,
    response: z.strictObject({ collection_id: z.string(), deleted: z.literal(true) }),
    successMessage: "collection deleted",
    errors: [...AUTH_ERRORS, ...NOT_FOUND, ...COMMON],
    example: { collection_id: "col_…" },
  },
  "/api/collections/items": {
    ...base,
    summary: "A collection's tasks",
    description:
      "One page of the collection's task ids, newest entries first (page from 1, page_size up to 100, default 20); query each with `/api/generator/query`.",
    body: CollectionPageSchema,
    response: z.strictObject({
      collection: Collection,
      items: z.array(z.strictObject({ gen_id: z.string(), added_at: isoTime() })),
      total: z.int(),
      page: z.int(),
      page_size: z.int(),
    }),
    errors: [...AUTH_ERRORS, ...NOT_FOUND, ...COMMON],
    example: { collection_id: "col_…", page: 1, page_size: 20 },
  },
} as const satisfies Record<string, EndpointDef>;
