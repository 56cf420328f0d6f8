/**
 * Configuration, read once from the environment and validated (docs/design.md §7).
 * A bad value stops start-up with one line naming the variable.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0", "on", "off", "yes", "no"])
  .transform((v) => ["true", "1", "on", "yes"].includes(v));
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ""));
const opt = z.string().trim().min(1).optional();
const csv = z
  .string()
  .default("")
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim().toLowerCase())
      .filter(Boolean),
  );

const EnvSchema = z.object({
  // `bun run start` and the executable serve production by default; `bun run dev` sets development.
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: url.optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_PATH: opt,
  /** PostgreSQL instead of the SQLite file (`postgres://user:pass@host:5432/db`): several nodes share one database. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" }).optional(),
  /** Connections each process keeps to PostgreSQL at most. */
  DATABASE_POOL_MAX: int(1, 1000).default(10),
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  ADMIN_EMAILS: csv,
  SIGNUP_CREDITS: int(0, 1_000_000).default(10),
  TRUSTED_ORIGINS: z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    ),

  OPENAI_API_KEY: opt,
  OPENAI_BASE_URL: url.default("https://api.openai.com/v1"),
  REPLICATE_API_TOKEN: opt,
  REPLICATE_BASE_URL: url.default("https://api.replicate.com/v1"),
  KLING_ACCESS_KEY: opt,
  KLING_SECRET_KEY: opt,
  KLING_BASE_URL: url.default("https://api-singapore.klingai.com"),
  RUNWAY_API_KEY: opt,
  RUNWAY_BASE_URL: url.default("https://api.dev.runwayml.com"),
  FAL_KEY: opt,
  FAL_QUEUE_URL: url.default("https://queue.fal.run"),
  /** Where fal publishes each endpoint's OpenAPI document (adding a fal model from the admin). */
  FAL_API_URL: url.default("https://fal.ai"),
  GEMINI_API_KEY: opt,
  GEMINI_BASE_URL: url.default("https://generativelanguage.googleapis.com"),
  /** e.g. `openai:dall-e-3=dall-e-3,replicate:black-forest-labs/flux-schnell=owner/other` */
  MODEL_MAP: z.string().default(""),
  /** `provider:model=cents,…`: what the provider charges per task, for the admin dashboard's margins. */
  PROVIDER_COSTS: z.string().default(""),

  DEEPSEEK_API_KEY: opt,
  DEEPSEEK_BASE_URL: url.default("https://api.deepseek.com/v1"),
  OPENROUTER_API_KEY: opt,
  OPENROUTER_BASE_URL: url.default("https://openrouter.ai/api/v1"),
  SILICONFLOW_API_KEY: opt,
  SILICONFLOW_BASE_URL: url.default("https://api.siliconflow.cn/v1"),
  DEMO_PUBLIC: bool.default(false),
  /** Demo requests per client (user, or IP when anonymous) per minute, in every mode; 0 turns the limit off. */
  DEMO_RATE_LIMIT: int(0, 1_000_000).default(10),
  /** Pause between the words of a simulated demo reply. */
  DEMO_SIMULATOR_WORD_MS: int(0, 10_000).default(40),
  /** Mail transport for verification and password-reset e-mails (`smtp://user:pass@host:587`, `smtps://…`); unset: links go to the log. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  /** Sender of those e-mails; default `Atelier <no-reply@<PUBLIC_URL host>>`. */
  MAIL_FROM: opt,
  /** better-auth's per-IP limiter on sign-in, sign-up and reset requests; `off` for tests and trusted networks. The per-account sign-in throttle is always on. */
  AUTH_RATE_LIMIT: bool.default(true),
  /** Sign-in with Google (docs/self-hosting.md "Sign-in providers"): both set, or neither. */
  GOOGLE_CLIENT_ID: opt,
  GOOGLE_CLIENT_SECRET: opt,
  /** Sign-in with GitHub (an OAuth app): both set, or neither. */
  GITHUB_CLIENT_ID: opt,
  GITHUB_CLIENT_SECRET: opt,
  /** Any OpenID Connect provider, found by discovery at `<OIDC_ISSUER>/.well-known/openid-configuration`. */
  OIDC_ISSUER: url.optional(),
  OIDC_CLIENT_ID: opt,
  OIDC_CLIENT_SECRET: opt,
  /** The provider's name on the sign-in button ("Continue with <OIDC_NAME>"); unset: "Single sign-on". */
  OIDC_NAME: z.string().trim().min(1).max(60).optional(),
  /** A captcha on e-mail sign-up (docs/self-hosting.md "Captcha"): `turnstile` (Cloudflare) or `hcaptcha`, with both keys. */
  CAPTCHA_PROVIDER: z.enum(["turnstile", "hcaptcha"]).optional(),
  CAPTCHA_SITE_KEY: opt,
  CAPTCHA_SECRET_KEY: opt,
  /** The provider's siteverify endpoint instead of its public one (a local fake in tests). */
  CAPTCHA_VERIFY_URL: url.optional(),
  /** How long sign-up waits for the verify endpoint before refusing (fails closed). */
  CAPTCHA_TIMEOUT_MS: int(100, 9_000).default(5_000),
  /** Prompt (and picture) moderation (docs/safety.md): `openai` sends each prompt to `{OPENAI_BASE_URL}/moderations`. */
  MODERATION_PROVIDER: z.enum(["none", "openai"]).default("none"),
  /** When the moderation service does not answer: `closed` refuses the task (default), `open` lets it through, logged. */
  MODERATION_FAIL: z.enum(["closed", "open"]).default("closed"),
  MODERATION_TIMEOUT_MS: int(100, 30_000).default(5_000),
  /** What Replicate's FLUX Pro/Kontext models get as `safety_tolerance` (0 strictest … 2; never a user option). */
  PROVIDER_SAFETY_TOLERANCE: int(0, 2).default(0),
  /** Behind a reverse proxy: take the client address from the last X-Forwarded-For entry. */
  TRUST_PROXY: bool.default(false),

  /** Let result downloads (and webhooks) reach loopback/private/CGNAT addresses: local fakes and tests only. */
  OUTBOUND_ALLOW_PRIVATE: bool.default(false),
  /** Let webhooks reach loopback/private addresses (development, tests). Link-local/metadata stay refused. */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** One delivery attempt's limit (connect + answer). */
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000),
  /** Waits before each retry, ms (the first attempt is immediate). Default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (≈ 27.6 h). */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("5000,300000,1800000,7200000,18000000,36000000,36000000")
    .refine((s) => s.split(",").every((x) => /^\s*\d+\s*$/.test(x)), "a comma-separated list of milliseconds")
    .transform((s) => s.split(",").map((x) => Number(x.trim()))),
  /** An endpoint failing without a single success for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: int(1000, 365 * 86_400_000).default(3 * 86_400_000),
  /** Deliveries in flight per process. */
  WEBHOOK_CONCURRENCY: int(1, 1000).default(16),
  /** Days a webhook event and its delivery log are kept once no delivery is pending (the retention sweep). */
  WEBHOOK_RETENTION_DAYS: int(1, 3650).default(30),
  SIMULATOR_DELAY_MS: int(0, 600_000).default(1500),
  JOBS: bool.default(true),
  JOB_CONCURRENCY: int(1, 1000).default(8),
  JOB_TICK_MS: int(10, 60_000).default(250),
  JOB_LEASE_MS: int(1000, 3_600_000).default(60_000),
  IMAGE_DEADLINE_MS: int(1000, 86_400_000).default(10 * 60_000),
  VIDEO_DEADLINE_MS: int(1000, 86_400_000).default(20 * 60_000),

  /** Input files (docs/api.md "Files"): the largest upload, each user's storage, days an unused file is kept. */
  FILE_MAX_BYTES: int(1024, 1024 * 1024 * 1024).default(20 * 1024 * 1024),
  FILE_QUOTA_MB: int(1, 10_000_000).default(500),
  FILE_RETENTION_DAYS: int(1, 3650).default(7),
  /** Uploads (and image inputs fetched from URLs) a user may make per minute. */
  FILE_UPLOAD_LIMIT: int(1, 100_000).default(30),

  S3_BUCKET: opt,
  S3_PUBLIC_URL: url.optional(),
  /** Smaller WebP copies of each result picture for the galleries (docs/media.md); off: pages show the originals. */
  MEDIA_RENDITIONS: bool.default(true),
  /** Content Credentials (C2PA) and the XMP AI label on every result (docs/provenance.md); off: results as made. */
  C2PA: bool.default(true),
  /** The signer's ES256 key and its certificate chain (PEM text or a path); absent: a self-signed dev signer. */
  C2PA_SIGNING_KEY: opt,
  C2PA_CERT_CHAIN: opt,

  RATE_LIMIT_STANDARD: int(1, 10_000_000).default(100),
  RATE_LIMIT_PREMIUM: int(1, 10_000_000).default(500),
  RATE_LIMIT_ADMIN: int(1, 10_000_000).default(1000),
  RATE_LIMIT_WINDOW_MS: int(1000, 3_600_000).default(60_000),
  /** API keys a user may create per hour (creating and revoking cannot churn without bound). */
  KEY_CREATE_LIMIT: int(1, 10_000).default(30),
  /** Opt-in limits for session requests (spec 8.2 recommendations). */
  SESSION_RATE_LIMITS: bool.default(false),

  /** Payments (docs/design.md §9): unset secret key → the simulated checkout. */
  STRIPE_SECRET_KEY: opt,
  STRIPE_WEBHOOK_SECRET: opt,
  /** Production without STRIPE_SECRET_KEY while a provider is live: the simulated checkout (free credits) only when this is true. */
  BILLING_SIMULATED: bool.default(false),
  /** Where the Stripe SDK sends API calls (a local fake in tests). */
  STRIPE_API_URL: url.default("https://api.stripe.com"),
  /** How long a pack's credits stay valid. */
  PACK_VALIDITY_DAYS: int(1, 36_500).default(365),
  /** A subscription period's credits stay valid until the period ends plus this grace. */
  SUBSCRIPTION_GRACE_DAYS: int(0, 365).default(3),
  /** An affiliate inviter's reward: this percentage of the invitee's first paid order's credits. */
  AFFILIATE_REWARD_PERCENT: int(0, 100).default(10),

  /** Set: GET /metrics answers Prometheus text to `Authorization: Bearer <METRICS_TOKEN>` (docs/operating.md). */
  METRICS_TOKEN: z.string().min(16, { error: "must be at least 16 characters (it guards /metrics)" }).optional(),

  /** Set: OpenTelemetry traces sent there over OTLP/HTTP (`<endpoint>/v1/traces`, JSON). */
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  OTEL_SERVICE_NAME: opt,
  /** Alerts mailed to the admins (docs/operating.md): how often the conditions are checked, and their thresholds. */
  ALERT_CHECK_MS: int(100, 3_600_000).default(60_000),
  ALERT_PROVIDER_ERROR_RATE: int(1, 100).default(50),
  ALERT_PROVIDER_MIN_TASKS: int(1, 1_000_000).default(10),
  ALERT_QUEUE_AGE_SECONDS: int(10, 86_400).default(300),
  ALERT_STRIPE_SIGNATURE_FAILURES: int(1, 1_000_000).default(5),

  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type Env = z.infer<typeof EnvSchema>;

/** Every variable the schema reads (the README's configuration table documents each: tests/unit/ops/config-reference.test.ts). */
export const CONFIG_VARIABLES = Object.keys(EnvSchema.shape) as (keyof Env)[];

export interface Config extends Env {
  publicUrl: string;
  dataDir: string;
  databasePath: string;
  /** PostgreSQL when DATABASE_URL is set, else the SQLite file at databasePath. */
  engine: "sqlite" | "postgres";
  mediaDir: string;
  authSecret: string;
  isProduction: boolean;
  /** `provider:model` → upstream model id (MODEL_MAP). */
  modelMap: Record<string, string>;
  /** `provider:model` → provider cost per task in cents (PROVIDER_COSTS). */
  providerCosts: Record<string, number>;
}

export class ConfigError extends Error {}

/** Where the data lives, for logs and messages: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(config: Pick<Config, "DATABASE_URL" | "databasePath">): string {
  if (!config.DATABASE_URL) return config.databasePath;
  const u = new URL(config.DATABASE_URL);
  u.password = "";
  return u.toString();
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    const got = env[name];
    throw new ConfigError(
      `invalid configuration: ${name}: ${issue.message}${got !== undefined ? ` (got "${got}")` : ""}`,
    );
  }
  const e = parsed.data;
  const isProduction = e.NODE_ENV === "production";
  const dataDir = resolve(e.DATA_DIR);
  if (Boolean(e.KLING_ACCESS_KEY) !== Boolean(e.KLING_SECRET_KEY)) {
    throw new ConfigError(
      "invalid configuration: KLING_SECRET_KEY: KLING_ACCESS_KEY and KLING_SECRET_KEY must be set together",
    );
  }
  for (const [id, secret] of [
    ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
    ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"],
  ] as const) {
    if (Boolean(e[id]) !== Boolean(e[secret]))
      throw new ConfigError(`invalid configuration: ${secret}: ${id} and ${secret} must be set together`);
  }
  if (Boolean(e.OIDC_ISSUER) !== Boolean(e.OIDC_CLIENT_ID)) {
    throw new ConfigError("invalid configuration: OIDC_CLIENT_ID: OIDC_ISSUER and OIDC_CLIENT_ID must be set together");
  }
  if (e.CAPTCHA_PROVIDER) {
    for (const key of ["CAPTCHA_SITE_KEY", "CAPTCHA_SECRET_KEY"] as const)
      if (!e[key]) throw new ConfigError(`invalid configuration: ${key}: required when CAPTCHA_PROVIDER is set`);
  } else {
    for (const key of ["CAPTCHA_SITE_KEY", "CAPTCHA_SECRET_KEY", "CAPTCHA_VERIFY_URL"] as const)
      if (e[key])
        throw new ConfigError(
          `invalid configuration: CAPTCHA_PROVIDER: required when ${key} is set (turnstile or hcaptcha)`,
        );
  }
  if (e.MODERATION_PROVIDER === "openai" && !e.OPENAI_API_KEY) {
    throw new ConfigError("invalid configuration: OPENAI_API_KEY: required when MODERATION_PROVIDER=openai");
  }
  if (e.S3_PUBLIC_URL && !e.S3_BUCKET) {
    throw new ConfigError("invalid configuration: S3_BUCKET: required when S3_PUBLIC_URL is set");
  }
  const modelMap: Record<string, string> = {};
  for (const pair of e.MODEL_MAP.split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z0-9-]+:[^=\s]+)=([^=\s]+)$/.exec(pair);
    if (!m) throw new ConfigError(`invalid configuration: MODEL_MAP: "${pair}" is not provider:model=upstream-model`);
    modelMap[m[1]!] = m[2]!;
  }
  const providerCosts: Record<string, number> = {};
  for (const pair of e.PROVIDER_COSTS.split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z0-9-]+:[^=\s]+)=(\d+(?:\.\d+)?)$/.exec(pair);
    if (!m) throw new ConfigError(`invalid configuration: PROVIDER_COSTS: "${pair}" is not provider:model=cents`);
    providerCosts[m[1]!] = Number(m[2]);
  }
  return {
    ...e,
    providerCosts,
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    dataDir,
    databasePath: e.DATABASE_PATH ? resolve(e.DATABASE_PATH) : join(dataDir, "atelier.db"),
    engine: e.DATABASE_URL ? "postgres" : "sqlite",
    mediaDir: join(dataDir, "media"),
    authSecret: e.BETTER_AUTH_SECRET ?? "",
    isProduction,
    modelMap,
  };
}

/**
 * Sessions and sign-ins need BETTER_AUTH_SECRET. One SQLite node generates its own into DATA_DIR
 * (ensureAuthSecret); nodes on PostgreSQL must share one, so there it must be set — by what serves
 * users (`serve`, the dev server). The job worker and the CLI commands sign nothing and run without it.
 */
export function requireAuthSecret(config: Pick<Config, "authSecret">): void {
  if (!config.authSecret) {
    throw new ConfigError(
      "invalid configuration: BETTER_AUTH_SECRET: required when DATABASE_URL is set (every node shares it; 32+ random characters)",
    );
  }
}

/** DATA_DIR, created readable by this user only (database, secret and media live there). */
export function ensureDataDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Without BETTER_AUTH_SECRET (a single node), a secret is generated once and
 * kept in DATA_DIR/.auth-secret (mode 0600), so `./atelier` starts with no configuration.
 */
export function ensureAuthSecret(config: Config): Config {
  // Nodes on PostgreSQL share a secret: none is made up here (requireAuthSecret refuses to serve without it).
  if (config.authSecret || config.engine === "postgres") return config;
  const file = join(config.dataDir, ".auth-secret");
  ensureDataDir(config.dataDir);
  try {
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another process (or an earlier start) made it first: use that one.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    chmodSync(file, 0o600);
  }
  return { ...config, authSecret: readFileSync(file, "utf8").trim() };
}

const KEY = Symbol.for("atelier.config");
type G = typeof globalThis & { [KEY]?: Config };

/** The process-wide configuration (read from process.env on first use). */
export function getConfig(): Config {
  const g = globalThis as G;
  if (!g[KEY]) g[KEY] = ensureAuthSecret(parseConfig(process.env));
  return g[KEY]!;
}
