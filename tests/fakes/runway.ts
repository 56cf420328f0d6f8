/**
 * A fake of Runway's API (https://docs.dev.runwayml.com/api, @runwayml/sdk):
 * `POST /v1/text_to_video` and `POST /v1/image_to_video` (gen4_turbo: `promptImage` required, a URL it
 * fetches or a data URI) → `{id}`, `GET /v1/tasks/{id}` walking PENDING →
 * THROTTLED → RUNNING → SUCCEEDED | FAILED | CANCELLED. Bearer auth and the
 * `X-Runway-Version` header are required, as upstream. Errors are
 * `{error: "..."}` bodies. `DELETE /v1/tasks/{id}` cancels a running task
 * (deletes a finished one) and answers 204; the ids are kept in `canceled`.
 */
import { FakeState, fakeId, fetchInput, json, malformed, type RunningFake, serveFile, startFake } from "./common";

export type RunwayOutcome = "SUCCEEDED" | "FAILED" | "CANCELLED";
const RATIOS = new Set(["1280:720", "720:1280"]);
const TURBO_RATIOS = new Set(["1280:720", "720:1280", "1104:832", "832:1104", "960:960", "1584:672"]);

interface Task {
  id: string;
  polls: number;
  outcome: RunwayOutcome;
  createdAt: string;
  body: Record<string, unknown>;
}

export interface RunwayFake extends RunningFake {
  apiKey: string;
  outcome: RunwayOutcome;
  /** The statuses a task shows on successive polls before its outcome. */
  walk: ("PENDING" | "THROTTLED" | "RUNNING")[];
  tasks: Map<string, Task>;
  /** Task ids a DELETE /v1/tasks/{id} reached, in order. */
  canceled: string[];
}

export function startRunwayFake(opts: { port?: number; apiKey?: string } = {}): RunwayFake {
  const state = new FakeState();
  const tasks = new Map<string, Task>();
  const fake = {} as RunwayFake;

  const view = (t: Task, origin: string) => {
    const status = t.polls <= fake.walk.length ? fake.walk[t.polls - 1]! : t.outcome;
    const base = { id: t.id, createdAt: t.createdAt, status };
    switch (status) {
      case "PENDING":
      case "THROTTLED":
        return { ...base, estimatedCost: { credits: 60 } };
      case "RUNNING":
        return { ...base, estimatedCost: { credits: 60 }, progress: 0.5 };
      case "SUCCEEDED":
        return { ...base, cost: { credits: 60 }, output: [`${origin}/files/${t.id}.mp4`] };
      case "FAILED":
        return {
          ...base,
          cost: { credits: 0 },
          failure: "The prompt was flagged by content moderation.",
          failureCode: "SAFETY.INPUT.TEXT",
        };
      case "CANCELLED":
        return { ...base, cost: { credits: 0 } };
    }
  };

  const running = startFake(
    opts.port ?? 0,
    "",
    async (req, url, origin) => {
      const file = serveFile(url.pathname);
      if (file && req.method === "GET") return file;
      const entry = await state.log(req);
      const get = /^\/v1\/tasks\/([^/]+)$/.exec(url.pathname);
      const fromImage = url.pathname === "/v1/image_to_video";
      const route =
        (url.pathname === "/v1/text_to_video" || fromImage) && req.method === "POST"
          ? "create"
          : get && req.method === "GET"
            ? "poll"
            : get && req.method === "DELETE"
              ? "cancel"
              : null;
      if (!route) return json({ error: "Not found" }, 404);

      if (req.headers.get("authorization") !== `Bearer ${fake.apiKey}`) return json({ error: "Invalid API key" }, 401);
      if (req.headers.get("x-runway-version") !== "2024-11-06") {
        return json({ error: "The X-Runway-Version header must be set to a supported version (2024-11-06)." }, 400);
      }
      switch (state.take(route === "cancel" ? "any" : route)) {
        case "auth":
          return json({ error: "Invalid API key" }, 401);
        case "rate_limit":
          return json({ error: "You have exceeded the rate limit for this organization." }, 429);
        case "server":
          return json({ error: "An unexpected error occurred." }, 500);
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
      }

      if (route === "create") {
        const b = (entry.body ?? {}) as Record<string, unknown>;
        const issues: string[] = [];
        const model = fromImage ? "gen4_turbo" : "gen4.5";
        if (b.model !== model) issues.push(`model: Invalid literal value, expected "${model}"`);
        // promptText is optional from an image, required from text.
        if (
          (b.promptText !== undefined || !fromImage) &&
          (typeof b.promptText !== "string" || b.promptText.length === 0 || b.promptText.length > 1000)
        )
          issues.push("promptText: must be 1 to 1000 characters");
        if (typeof b.ratio !== "string" || !(fromImage ? TURBO_RATIOS : RATIOS).has(b.ratio))
          issues.push("ratio: Invalid enum value");
        if (typeof b.duration !== "number" || !Number.isInteger(b.duration) || b.duration < 2 || b.duration > 10)
          issues.push("duration: must be an integer from 2 to 10");
        if (fromImage) {
          if (typeof b.promptImage !== "string") issues.push("promptImage: Required");
          else if (!b.promptImage.startsWith("data:image/")) {
            // Runway downloads an https promptImage when the task is created.
            const unread = await fetchInput(state, "promptImage", b.promptImage);
            if (unread) issues.push(`promptImage: ${unread}`);
          }
        }
        if (issues.length)
          return json(
            {
              error: `Validation of body failed: ${issues.join("; ")}`,
              issues: issues.map((message) => ({ message })),
            },
            400,
          );
        const t: Task = {
          id: crypto.randomUUID(),
          polls: 0,
          outcome: fake.outcome,
          createdAt: new Date().toISOString(),
          body: b,
        };
        tasks.set(t.id, t);
        return json({ id: t.id, estimatedCost: { credits: 60 } });
      }
      const t = tasks.get(decodeURIComponent(get![1]!));
      if (!t) return json({ error: "Task not found" }, 404);
      if (route === "cancel") {
        fake.canceled.push(t.id);
        t.outcome = "CANCELLED";
        t.polls = fake.walk.length;
        return new Response(null, { status: 204 });
      }
      t.polls++;
      return json(view(t, origin));
    },
    state,
  );

  void fakeId;
  return Object.assign(fake, running, {
    apiKey: opts.apiKey ?? "key_fake_runway",
    outcome: "SUCCEEDED" as RunwayOutcome,
    walk: ["PENDING", "THROTTLED", "RUNNING"] as RunwayFake["walk"],
    tasks,
    canceled: [] as string[],
  });
}
