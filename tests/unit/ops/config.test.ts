import { describe, expect, test } from "bun:test";
import { ConfigError, describeDatabase, parseConfig, requireAuthSecret } from "~/lib/config.server";

describe("configuration (docs/design.md §7)", () => {
  test("defaults", () => {
    const c = parseConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe("0.0.0.0");
    expect(c.publicUrl).toBe("http://localhost:3000");
    expect(c.databasePath.endsWith("data/atelier.db")).toBe(true);
    expect(c.SIGNUP_CREDITS).toBe(10);
    expect(c.SIMULATOR_DELAY_MS).toBe(1500);
    expect(c.JOBS).toBe(true);
    expect(c.JOB_CONCURRENCY).toBe(8);
    expect(c.JOB_TICK_MS).toBe(250);
    expect(c.RATE_LIMIT_STANDARD).toBe(100);
    expect(c.RATE_LIMIT_PREMIUM).toBe(500);
    expect(c.RATE_LIMIT_ADMIN).toBe(1000);
    expect(c.DEMO_PUBLIC).toBe(false);
    // A server started with no configuration is a production server (docs/decisions/051-safe-defaults.md).
    expect(c.NODE_ENV).toBe("production");
    expect(c.isProduction).toBe(true);
  });

  test("no BETTER_AUTH_SECRET: fine on a single node (generated into DATA_DIR); with DATABASE_URL required to serve, not to parse", () => {
    expect(parseConfig({ NODE_ENV: "production" }).authSecret).toBe("");
    const pg = parseConfig({ DATABASE_URL: "postgres://db/atelier" });
    expect(pg.authSecret).toBe("");
    expect(() => requireAuthSecret(pg)).toThrow(
      /^invalid configuration: BETTER_AUTH_SECRET: required when DATABASE_URL is set/,
    );
    expect(() =>
      requireAuthSecret(parseConfig({ DATABASE_URL: "postgres://db/atelier", BETTER_AUTH_SECRET: "s".repeat(40) })),
    ).not.toThrow();
  });

  test("DATABASE_URL picks the engine once: a postgres:// URL → postgres, unset → sqlite; other URLs refused; the password never shown", () => {
    const secret = "s".repeat(40);
    expect(parseConfig({}).engine).toBe("sqlite");
    const pg = parseConfig({
      DATABASE_URL: "postgres://atelier:hunter2@db.internal:5432/atelier",
      BETTER_AUTH_SECRET: secret,
    });
    expect([pg.engine, pg.DATABASE_POOL_MAX]).toEqual(["postgres", 10]);
    expect(describeDatabase(pg)).toBe("postgres://atelier@db.internal:5432/atelier");
    expect(
      parseConfig({ DATABASE_URL: "postgresql://db/atelier", BETTER_AUTH_SECRET: secret, DATABASE_POOL_MAX: "25" })
        .DATABASE_POOL_MAX,
    ).toBe(25);
    expect(() => parseConfig({ DATABASE_URL: "mysql://db/atelier", BETTER_AUTH_SECRET: secret })).toThrow(
      /^invalid configuration: DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
    expect(() =>
      parseConfig({ DATABASE_URL: "postgres://db/a", BETTER_AUTH_SECRET: secret, DATABASE_POOL_MAX: "0" }),
    ).toThrow(/^invalid configuration: DATABASE_POOL_MAX/);
  });

  test("PUBLIC_URL follows PORT when unset; trailing slash trimmed when set", () => {
    expect(parseConfig({ PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    expect(parseConfig({ PUBLIC_URL: "https://atelier.example.com/" }).publicUrl).toBe("https://atelier.example.com");
  });

  test("mail and auth throttling: SMTP_URL must be smtp(s); AUTH_RATE_LIMIT on unless turned off", () => {
    expect(parseConfig({}).SMTP_URL).toBeUndefined();
    expect(parseConfig({}).AUTH_RATE_LIMIT).toBe(true);
    expect(parseConfig({ AUTH_RATE_LIMIT: "off" }).AUTH_RATE_LIMIT).toBe(false);
    expect(parseConfig({ SMTP_URL: "smtps://u:p@smtp.example.com:465" }).SMTP_URL).toBe(
      "smtps://u:p@smtp.example.com:465",
    );
    expect(() => parseConfig({ SMTP_URL: "http://smtp.example.com" })).toThrow(
      /^invalid configuration: SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/,
    );
    expect(() => parseConfig({ AUTH_RATE_LIMIT: "maybe" })).toThrow(/^invalid configuration: AUTH_RATE_LIMIT/);
  });

  test("ADMIN_EMAILS is a lower-cased list", () => {
    expect(parseConfig({ ADMIN_EMAILS: " Root@Example.com, ops@example.com ,," }).ADMIN_EMAILS).toEqual([
      "root@example.com",
      "ops@example.com",
    ]);
  });

  const bad: [Record<string, string>, string][] = [
    [{ PORT: "eighty" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ SIGNUP_CREDITS: "-1" }, "SIGNUP_CREDITS"],
    [{ PUBLIC_URL: "not a url" }, "PUBLIC_URL"],
    [{ JOBS: "maybe" }, "JOBS"],
    [{ NODE_ENV: "staging" }, "NODE_ENV"],
    [{ BETTER_AUTH_SECRET: "short" }, "BETTER_AUTH_SECRET"],
    [{ KLING_ACCESS_KEY: "ak" }, "KLING_SECRET_KEY"],
    [{ MODEL_MAP: "nonsense" }, "MODEL_MAP"],
  ];
  for (const [env, name] of bad) {
    test(`a bad value stops start-up naming ${name}: ${JSON.stringify(env)}`, () => {
      expect(() => parseConfig(env)).toThrow(ConfigError);
      try {
        parseConfig(env);
      } catch (e) {
        const msg = (e as Error).message;
        expect(msg).toStartWith(`invalid configuration: ${name}:`);
        expect(msg.includes("\n")).toBe(false);
      }
    });
  }

  test("MODEL_MAP maps provider:model to an upstream id", () => {
    expect(
      parseConfig({ MODEL_MAP: "openai:dall-e-3=dall-e-3-hd, replicate:black-forest-labs/flux-schnell=acme/flux" })
        .modelMap,
    ).toEqual({
      "openai:dall-e-3": "dall-e-3-hd",
      "replicate:black-forest-labs/flux-schnell": "acme/flux",
    });
  });
});
