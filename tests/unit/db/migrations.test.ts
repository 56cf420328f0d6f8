import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { openDatabase } from "#db/client";
import { migrations } from "#db/migrations.gen";
import { errorBody, okBody } from "~/lib/envelope";
import { AppError } from "~/lib/errors";

describe("embedded migrations", () => {
  test("db/migrations.gen.ts matches db/migrations (run `bun run db:generate`)", () => {
    const onDisk = readMigrationFiles({ migrationsFolder: join(import.meta.dir, "../../../db/migrations") });
    expect(migrations.map((m) => m.hash)).toEqual(onDisk.map((m) => m.hash));
  });

  test("apply on an empty database, and a second open applies nothing", () => {
    const db = openDatabase(":memory:");
    const tables = db.sqlite!.query("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as {
      name: string;
    }[];
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "user",
        "session",
        "account",
        "verification",
        "credit_grants",
        "generations",
        "api_keys",
      ]),
    );
  });
});

describe("envelope and error table (spec §7, docs/design.md §1)", () => {
  test("success and error shapes", () => {
    expect(okBody({ a: 1 })).toEqual({ code: 0, message: "ok", data: { a: 1 } });
    expect(okBody(undefined)).toEqual({ code: 0, message: "ok", data: null });
    expect(errorBody("x")).toEqual({ code: 1, message: "x", data: null });
  });

  const cases: [AppError, string, number][] = [
    [new AppError("UNAUTHENTICATED"), "no auth, please sign-in", 200],
    [new AppError("INVALID_PARAMS"), "invalid params", 200],
    [new AppError("INVALID_PARAMS", { reason: "rating must be 1..5" }), "invalid params: rating must be 1..5", 200],
    [new AppError("GENERATION_FIELDS_REQUIRED"), "invalid params: ai_type, provider, model, prompt required", 200],
    [new AppError("INVALID_AI_TYPE"), "invalid params: ai_type must be image or video", 200],
    [new AppError("PROMPT_TOO_LONG", { max: 4000 }), "invalid params: prompt too long (max 4000)", 200],
    [new AppError("USER_NOT_FOUND"), "user not found", 200],
    [new AppError("INSUFFICIENT_CREDITS", { need: 10, have: 3 }), "insufficient credits: need 10, have 3", 200],
    [new AppError("UNSUPPORTED_PROVIDER", { aiType: "video", provider: "x" }), "Unsupported video provider: x", 200],
    [new AppError("UNSUPPORTED_PROVIDER", { aiType: "image", provider: "y" }), "Unsupported image provider: y", 200],
    [new AppError("UNSUPPORTED_MODEL", { model: "m" }), "Unsupported model: m", 200],
    [new AppError("GENERATION_NOT_FOUND"), "generation not found", 200],
    [new AppError("API_KEY_NOT_FOUND"), "API key not found", 401],
    [new AppError("API_KEY_REVOKED"), "API key revoked", 401],
    [new AppError("RATE_LIMITED"), "Too Many Requests", 429],
    [new AppError("FORBIDDEN"), "forbidden", 200],
    [new AppError("INTERNAL"), "internal error", 500],
  ];
  for (const [err, message, status] of cases) {
    test(`${err.code} → "${message}" (HTTP ${status})`, () => {
      expect(err.message).toBe(message);
      expect(err.status).toBe(status);
    });
  }
});
