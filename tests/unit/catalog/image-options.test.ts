/**
 * Which seed models take pictures (docs/catalog.md "Image inputs", "The seeded models"), under which upstream field,
 * and how a seed that gained inputs reaches a database made before it: rows no admin changed take the seed's
 * options; a row an admin changed keeps the admin's.
 */
import { describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { catalogModels } from "#db/schema";
import { CATALOG, findOffering, inputsOf, type Offering, optionsProblem } from "~/domain/catalog";
import { seedCatalog } from "~/domain/catalog/store.server";
import { manualClock } from "~/lib/clock";
import { skipWithoutPostgres, startPostgres } from "../../support/postgres";

const offering = (aiType: string, provider: string, model: string): Offering => {
  const o = findOffering(aiType, provider, model);
  if (!o) throw new Error(`${provider}/${model} is not in the catalog`);
  return o;
};
const imageParams = (o: Offering) =>
  Object.fromEntries(
    Object.entries(o.options)
      .filter(([, spec]) => spec.type === "image")
      .map(([name, spec]) => [name, { param: spec.param ?? name, required: spec.required === true }]),
  );

describe("the seed's image inputs", () => {
  test("each model names the provider's field, and requires the picture where the provider does", () => {
    expect(imageParams(offering("image", "openai", "gpt-image-1"))).toEqual({
      image: { param: "image", required: false },
      mask: { param: "mask", required: false },
    });
    expect(imageParams(offering("image", "replicate", "black-forest-labs/flux-kontext-pro"))).toEqual({
      image: { param: "input_image", required: false },
    });
    for (const model of ["kling-v1", "kling-v1-6"])
      expect(imageParams(offering("video", "kling", model))).toEqual({
        image: { param: "image", required: false },
        image_end: { param: "image_tail", required: false },
      });
    expect(imageParams(offering("video", "runway", "gen4_turbo"))).toEqual({
      image: { param: "promptImage", required: true },
    });
  });

  test("validation: a file id or an https URL is taken; flux-schnell and the Kling image model refuse a picture; gen4_turbo refuses a task without one", () => {
    expect(
      optionsProblem(offering("video", "kling", "kling-v1"), { image: "file_abc", image_end: "https://x.test/e.png" }),
    ).toBeNull();
    expect(
      optionsProblem(offering("image", "openai", "gpt-image-1"), { image: "file_abc", mask: "file_def" }),
    ).toBeNull();
    expect(
      optionsProblem(offering("image", "replicate", "black-forest-labs/flux-schnell"), { image: "file_abc" }),
    ).toMatch(/^options\.image is not accepted by black-forest-labs\/flux-schnell/);
    expect(optionsProblem(offering("image", "kling", "kling-v1"), { image: "file_abc" })).toMatch(/is not accepted/);
    expect(optionsProblem(offering("video", "runway", "gen4_turbo"), {})).toBe("options.image is required");
    expect(optionsProblem(offering("video", "runway", "gen4_turbo"), { image: "http://x.test/a.png" })).toMatch(
      /^options\.image must be an https URL/,
    );
    expect(inputsOf(offering("image", "replicate", "black-forest-labs/flux-schnell"))).toEqual(["text"]);
    expect(inputsOf(offering("video", "runway", "gen4_turbo"))).toEqual(["text", "image"]);
  });

  test("the new models have prices and upstream costs; the contract's models keep theirs", () => {
    expect(offering("image", "replicate", "black-forest-labs/flux-kontext-pro")).toMatchObject({
      credits: 5,
      cost: { usd: 0.04, per: "task" },
    });
    expect(offering("video", "runway", "gen4_turbo")).toMatchObject({
      credits: 12,
      cost: { usd: 0.05, per: "second" },
    });
    const credits = (aiType: string, provider: string, model: string) => offering(aiType, provider, model).credits;
    expect(credits("image", "openai", "gpt-image-1")).toBe(8);
    expect(credits("video", "kling", "kling-v1")).toBe(10);
    expect(credits("video", "kling", "kling-v1-6")).toBe(15);
  });
});

/** SQLite in memory, and PostgreSQL where it is installed (a throwaway cluster). */
const ENGINES: [string, () => Promise<{ db: Db; stop: () => Promise<void> }>][] = [
  [
    "SQLite",
    async () => {
      const db = openDatabase(":memory:");
      return { db, stop: async () => void db.close() };
    },
  ],
];
if (!skipWithoutPostgres())
  ENGINES.push([
    "PostgreSQL",
    async () => {
      const pg = await startPostgres();
      const db = await openPostgres(pg.url, { poolMax: 4 });
      return { db, stop: async () => (await db.close(), await pg.stop()) };
    },
  ]);

describe.each(ENGINES)("a database seeded before the models took pictures (%s)", (_engine, open) => {
  const key = (model: string) =>
    and(eq(catalogModels.aiType, "video"), eq(catalogModels.provider, "kling"), eq(catalogModels.model, model));

  test("rows no admin changed take the seed's options; an admin's row keeps its own; new models are added", async () => {
    const { db, stop } = await open();
    const clock = manualClock();
    await db.tx(function* (t) {
      yield* seedCatalog(t, clock);
    });
    // What an older release stored: kling-v1 and kling-v1-6 without image options, gen4_turbo absent; an admin
    // has since edited kling-v1-6 (revision 2).
    const old = JSON.stringify({ duration: offering("video", "kling", "kling-v1").options.duration });
    await db.run(db.update(catalogModels).set({ options: old }).where(key("kling-v1")));
    await db.run(db.update(catalogModels).set({ options: old, revision: 2 }).where(key("kling-v1-6")));
    await db.run(db.delete(catalogModels).where(eq(catalogModels.model, "gen4_turbo")));

    await db.tx(function* (t) {
      yield* seedCatalog(t, clock);
    });
    const rows = await db.many(db.select().from(catalogModels));
    const options = (model: string) => JSON.parse(rows.find((r) => r.model === model && r.aiType === "video")!.options);
    expect(Object.keys(options("kling-v1"))).toContain("image_end");
    expect(Number(rows.find((r) => r.model === "kling-v1" && r.aiType === "video")!.revision)).toBe(1);
    expect(options("kling-v1-6")).toEqual(JSON.parse(old));
    expect(options("gen4_turbo").image).toMatchObject({ type: "image", required: true });
    expect(rows).toHaveLength(CATALOG.length);
    await stop();
  }, 60_000);
});
