/**
 * The pipeline's safety step (app/domain/results/safety-step.server.ts): a flagged provider verdict or a flagged
 * classifier verdict refuses the result with `content policy:` (by request: the user's own), recorded in the audit
 * trail with the rule and the task, never the content; an unflagged result is kept.
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "#db/client";
import { safetyEvents } from "#db/schema";
import type { ResultFile, ResultTask } from "~/domain/results/pipeline.server";
import { safetyStep } from "~/domain/results/safety-step.server";
import type { PictureClassifier } from "~/domain/safety/classifier.server";
import { manualClock } from "~/lib/clock";

const task: ResultTask = {
  id: "gen_1",
  userId: "user_1",
  aiType: "image",
  provider: "fal",
  model: "fal-ai/flux/dev",
  upstreamModel: "fal-ai/flux/dev",
  prompt: "a cat",
  options: {},
  mode: "simulated",
  createdAt: 0,
};
const file = (extra: Partial<ResultFile> = {}): ResultFile => ({
  index: 0,
  bytes: new Uint8Array([1, 2, 3]),
  contentType: "image/png",
  notes: {},
  ...extra,
});
const classifier = (flagged: boolean): PictureClassifier & { calls: number } => {
  const c = {
    calls: 0,
    async classify() {
      c.calls++;
      return { flagged, category: flagged ? "porn" : "neutral" };
    },
  };
  return c;
};
const signal = new AbortController().signal;

describe("the safety step", () => {
  test("a flagged provider verdict refuses, recorded without the prompt; the classifier is not needed", async () => {
    const db = openDatabase(":memory:");
    const c = classifier(false);
    const step = safetyStep({ db, clock: manualClock(), config: {}, classifier: c });
    const out = await step.run(file({ providerVerdict: { flagged: true, category: "nsfw" } }), task, signal);
    expect(out).toMatchObject({ kind: "refuse", byRequest: true });
    if (out.kind !== "refuse") throw new Error("unreachable");
    expect(out.message).toStartWith("content policy: the result was flagged as sexual content");
    expect(c.calls).toBe(0);
    const events = await db.many(db.select().from(safetyEvents));
    expect(events).toMatchObject([
      { kind: "result_refused", category: "provider:nsfw", userId: "user_1", detail: "gen_1" },
    ]);
    expect(JSON.stringify(events)).not.toContain("a cat");
  });

  test("an unflagged provider verdict and a clean classifier keep the result", async () => {
    const db = openDatabase(":memory:");
    const c = classifier(false);
    const step = safetyStep({ db, clock: manualClock(), config: {}, classifier: c });
    expect((await step.run(file({ providerVerdict: { flagged: false } }), task, signal)).kind).toBe("keep");
    expect(c.calls).toBe(1);
    expect(await db.many(db.select().from(safetyEvents))).toEqual([]);
  });

  test("a classifier that flags refuses; a video is not given to the picture classifier", async () => {
    const db = openDatabase(":memory:");
    const c = classifier(true);
    const step = safetyStep({ db, clock: manualClock(), config: {}, classifier: c });
    const out = await step.run(file(), task, signal);
    expect(out.kind).toBe("refuse");
    const video = await step.run(file({ contentType: "video/mp4" }), { ...task, aiType: "video" }, signal);
    expect(video.kind).toBe("keep");
    expect(c.calls).toBe(1);
  });
});
