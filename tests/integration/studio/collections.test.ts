/**
 * Collections (docs/api.md "Collections", ADR 165), real HTTP against a started server, with a second user's
 * collection and tasks present: create → add → list counts; batches all or none; another user's collection or task
 * reads as not found; names unique ignoring case and spaces; bounds at, under and over; removing a task from the
 * gallery leaves the count right; scoped keys. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations } from "#db/schema";
import { Client, uniqueEmail } from "../../support/client";
import { openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let db: Db;

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP_CREDITS: "100" } });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
});

type Auth = { cookie?: string; key?: string };
const post = (path: string, body: unknown, auth: Auth) =>
  api.post(path, body, auth.key ? { apiKey: auth.key } : { cookie: auth.cookie });
async function task(auth: Auth, prompt = "a lighthouse") {
  const r = await post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt, options: {} },
    auth,
  );
  expect(r.body.code).toBe(0);
  return r.body.data.gen_id as string;
}
async function collection(auth: Auth, name: string) {
  const r = await post("/api/collections/create", { name }, auth);
  expect(r.body).toMatchObject({ code: 0, message: "collection created", data: { name, count: 0 } });
  return r.body.data.collection_id as string;
}
const list = async (auth: Auth) => (await post("/api/collections/list", undefined, auth)).body.data.collections;

describe("collections", () => {
  let me: Auth;
  let other: Auth;
  let otherCol: string;
  let otherTask: string;
  beforeAll(async () => {
    me = { cookie: (await api.signUp(uniqueEmail("col"))).cookie };
    other = { cookie: (await api.signUp(uniqueEmail("col-other"))).cookie };
    otherCol = await collection(other, "Theirs");
    otherTask = await task(other);
    expect(
      (await post("/api/collections/add", { collection_id: otherCol, gen_ids: [otherTask] }, other)).body.code,
    ).toBe(0);
  });

  test("the contract: create → collection_id; add gen_ids; list with count", async () => {
    const id = await collection(me, "Lighthouses");
    expect(id).toMatch(/^col_[A-Za-z0-9_-]{22}$/);
    const a = await task(me);
    const b = await task(me, "a harbour");
    const add = await post("/api/collections/add", { collection_id: id, gen_ids: [a, b, a] }, me);
    expect(add.body).toEqual({
      code: 0,
      message: "added to collection",
      data: { collection_id: id, added: 2, count: 2 },
    });
    // Again: nothing added twice.
    expect((await post("/api/collections/add", { collection_id: id, gen_ids: [b] }, me)).body.data).toEqual({
      collection_id: id,
      added: 0,
      count: 2,
    });
    const mine = await list(me);
    expect(mine.map((c: { name: string; count: number }) => [c.name, c.count])).toEqual([["Lighthouses", 2]]);
    const page = await post("/api/collections/items", { collection_id: id }, me);
    expect(page.body.data.total).toBe(2);
    expect(page.body.data.items.map((i: { gen_id: string }) => i.gen_id).sort()).toEqual([a, b].sort());
    // The other user's list is theirs alone.
    expect((await list(other)).map((c: { name: string }) => c.name)).toEqual(["Theirs"]);
  });

  test("another user's collection and task read as not found, and a mixed batch adds nothing", async () => {
    const id = await collection(me, "Mixed");
    const mine = await task(me);
    for (const path of ["/api/collections/add", "/api/collections/remove"])
      expect((await post(path, { collection_id: otherCol, gen_ids: [otherTask] }, me)).body).toEqual({
        code: 1,
        message: "collection not found",
        data: null,
      });
    for (const path of ["/api/collections/items", "/api/collections/delete"])
      expect((await post(path, { collection_id: otherCol }, me)).body.message).toBe("collection not found");
    expect(
      (await post("/api/collections/rename", { collection_id: otherCol, name: "Mine now" }, me)).body.message,
    ).toBe("collection not found");
    const mixed = await post("/api/collections/add", { collection_id: id, gen_ids: [mine, otherTask] }, me);
    expect(mixed.body).toEqual({ code: 1, message: "generation not found", data: null });
    expect((await post("/api/collections/items", { collection_id: id }, me)).body.data.total).toBe(0);
    expect((await post("/api/collections/items", { collection_id: otherCol }, other)).body.data.total).toBe(1);
  });

  test("names: unique per user ignoring case and spaces, 80 characters at most; another user may reuse one", async () => {
    const u = { cookie: (await api.signUp(uniqueEmail("col-names"))).cookie };
    await collection(u, "Trips");
    expect((await post("/api/collections/create", { name: "  trips " }, u)).body.message).toBe(
      "you already have a collection with this name",
    );
    expect((await post("/api/collections/create", { name: "Theirs" }, u)).body.code).toBe(0);
    await collection(u, "x".repeat(80));
    expect((await post("/api/collections/create", { name: "y".repeat(81) }, u)).body).toEqual({
      code: 1,
      message: "invalid params: name must be at most 80 characters",
      data: null,
    });
    expect((await post("/api/collections/create", { name: "   " }, u)).body.message).toBe(
      "invalid params: name required",
    );
    expect((await post("/api/collections/create", { name: "a", extra: 1 }, u)).body.message).toBe(
      "invalid params: unknown field extra",
    );
    const id = (await list(u)).find((c: { name: string }) => c.name === "Trips").collection_id;
    const renamed = await post("/api/collections/rename", { collection_id: id, name: "TRIPS" }, u);
    expect(renamed.body.data.name).toBe("TRIPS");
    expect((await post("/api/collections/rename", { collection_id: id, name: "theirs" }, u)).body.message).toBe(
      "you already have a collection with this name",
    );
  });

  test("a batch of 100 ids is taken, 101 refused; an empty one refused", async () => {
    const id = await collection(me, "Batch");
    const t = await task(me);
    const hundred = Array.from({ length: 100 }, () => t);
    expect((await post("/api/collections/add", { collection_id: id, gen_ids: hundred }, me)).body.data.added).toBe(1);
    expect((await post("/api/collections/add", { collection_id: id, gen_ids: [...hundred, t] }, me)).body.message).toBe(
      "invalid params: gen_ids: at most 100 at once",
    );
    expect((await post("/api/collections/add", { collection_id: id, gen_ids: [] }, me)).body.message).toBe(
      "invalid params: gen_ids required",
    );
  });

  test("removing from the collection and from the gallery: counts follow, the task stays", async () => {
    const id = await collection(me, "Counts");
    const a = await task(me);
    const b = await task(me);
    await post("/api/collections/add", { collection_id: id, gen_ids: [a, b] }, me);
    const rm = await post("/api/collections/remove", { collection_id: id, gen_ids: [a] }, me);
    expect(rm.body.data).toEqual({ collection_id: id, removed: 1, count: 1 });
    expect((await post("/api/generator/query", { gen_id: a }, me)).body.code).toBe(0);
    // Removed from the gallery (the studio's "Remove"): no longer counted or listed, and cannot be added again.
    await db.run(db.update(generations).set({ hiddenAt: new Date() }).where(eq(generations.id, b)));
    expect((await post("/api/collections/items", { collection_id: id }, me)).body.data).toMatchObject({
      total: 0,
      items: [],
    });
    expect((await list(me)).find((c: { collection_id: string }) => c.collection_id === id).count).toBe(0);
    expect((await post("/api/collections/add", { collection_id: id, gen_ids: [b] }, me)).body.message).toBe(
      "generation not found",
    );
    const del = await post("/api/collections/delete", { collection_id: id }, me);
    expect(del.body.data).toEqual({ collection_id: id, deleted: true });
    expect((await list(me)).some((c: { collection_id: string }) => c.collection_id === id)).toBe(false);
    expect((await post("/api/generator/query", { gen_id: b }, me)).body.code).toBe(0);
  });

  test("keys: read lists, generate changes; a read-only key cannot add", async () => {
    const u = await api.signUp(uniqueEmail("col-keys"));
    const mk = async (scopes: string[]) =>
      (await api.post("/api/keys/create", { name: scopes.join("+"), scopes }, { cookie: u.cookie })).body.data
        .key as string;
    const full = { key: await mk(["generate", "read"]) };
    const read = { key: await mk(["read"]) };
    const id = await collection(full, "By key");
    const t = await task(full);
    expect((await post("/api/collections/add", { collection_id: id, gen_ids: [t] }, full)).body.data.count).toBe(1);
    expect((await list(read)).map((c: { count: number }) => c.count)).toEqual([1]);
    const refused = await post("/api/collections/add", { collection_id: id, gen_ids: [t] }, read);
    expect(refused.status).toBe(403);
    expect((await post("/api/collections/create", { name: "nope" }, read)).status).toBe(403);
  });
});

describe("the collection limit", () => {
  test("200 collections are allowed, the 201st is refused", async () => {
    const u = { cookie: (await api.signUp(uniqueEmail("col-many"))).cookie };
    for (let i = 0; i < 200; i++)
      expect((await post("/api/collections/create", { name: `c${i}` }, u)).body.code).toBe(0);
    expect((await post("/api/collections/create", { name: "c200" }, u)).body).toEqual({
      code: 1,
      message: "too many collections: at most 200",
      data: null,
    });
    expect((await list(u)).length).toBe(200);
  });
});
