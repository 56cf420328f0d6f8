#!/usr/bin/env bun
/**
 * `bun run mutate`: mutation testing (StrykerJS, command runner over `bun test`)
 * of the money and safety modules, one Stryker run per module with only the
 * tests that cover it, then one line per module with its mutation score.
 * Not part of CI (minutes per module on 2 cores). Usage:
 *   bun run mutate                 every module below
 *   bun run mutate -- ledger limiter   only these
 * Surviving mutants are listed in reports/mutation/<module>.json and the
 * console; reviewed survivors are explained in docs/testing.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");

/** module → the files mutated and the tests that must kill the mutants. */
export const MODULES: Record<string, { mutate: string[]; tests: string[]; env?: Record<string, string> }> = {
  ledger: {
    mutate: ["app/domain/credits/ledger.server.ts"],
    tests: ["tests/unit/credits/ledger.test.ts", "tests/unit/billing/billing.test.ts"],
  },
  checkin: { mutate: ["app/domain/credits/checkin.server.ts"], tests: ["tests/unit/credits/ledger.test.ts"] },
  generations: {
    mutate: [
      "app/domain/generations/validate.server.ts",
      "app/domain/generations/idempotency.server.ts",
      "app/domain/generations/create.server.ts",
      "app/domain/generations/views.server.ts",
      "app/domain/generations/history.server.ts",
      "app/domain/generations/filter.ts",
      "app/domain/generations/gallery.server.ts",
      "app/domain/generations/live.server.ts",
      "app/domain/generations/admin.server.ts",
    ],
    tests: [
      "tests/unit/generations/generations.test.ts",
      "tests/unit/generations/views.test.ts",
      "tests/unit/generations/idempotency.test.ts",
      "tests/unit/studio/queries.test.ts",
      "tests/unit/generations/options.test.ts",
      "tests/unit/credits/races.test.ts",
    ],
    env: { RACE_ROUNDS: "1", RACE_ENGINES: "sqlite" },
  },
  // The thread races in quick mode: one round each, SQLite only (~3 s instead of ~20 s per mutant).
  lifecycle: {
    mutate: [
      "app/domain/generations/lifecycle.server.ts",
      "app/domain/generations/claim.server.ts",
      "app/domain/generations/transitions.server.ts",
      "app/domain/generations/results.server.ts",
      "app/domain/generations/cancel.server.ts",
    ],
    tests: [
      "tests/unit/generations/generations.test.ts",
      "tests/unit/generations/lifecycle.test.ts",
      "tests/unit/generations/cancel.test.ts",
      "tests/unit/credits/races.test.ts",
    ],
    env: { RACE_ROUNDS: "1", RACE_ENGINES: "sqlite" },
  },
  limiter: { mutate: ["app/domain/rate-limits/*.ts"], tests: ["tests/unit/limits/rate-limit.test.ts"] },
  "api-keys": {
    mutate: ["app/domain/api-keys/*.ts"],
    tests: ["tests/unit/keys/api-keys.test.ts", "tests/unit/keys/guard.test.ts"],
  },
  // Payment fulfilment (grants, renewals, statuses, refunds, disputes, waiting events, referrals) at the domain, and from the Stripe fake's events in-process.
  payments: {
    mutate: [
      "app/domain/billing/fulfil.server.ts",
      "app/domain/billing/payments.server.ts",
      "app/domain/billing/status.server.ts",
      "app/domain/billing/refunds.server.ts",
      "app/domain/billing/referrals.server.ts",
    ],
    tests: ["tests/unit/billing/billing.test.ts", "tests/unit/billing/fulfil.test.ts"],
  },
  // The outbox rows of every final transition and the dispatcher's claims, signed requests (a local receiver), attempts, retries, disabling and resend.
  webhooks: {
    mutate: ["app/domain/webhooks/outbox.server.ts", "app/domain/webhooks/delivery.server.ts"],
    tests: [
      "tests/unit/webhooks/delivery.test.ts",
      "tests/unit/webhooks/resend.test.ts",
      "tests/unit/generations/cancel.test.ts",
      "tests/unit/generations/lifecycle.test.ts",
    ],
  },
  // Uploads judged by their bytes: sniffing, size limits, the container walks and the metadata allow-list.
  "upload-judging": {
    mutate: ["app/domain/files/image.server.ts"],
    tests: [
      "tests/unit/files/inspect.test.ts",
      "tests/unit/files/metadata.test.ts",
      "tests/unit/files/orientation.test.ts",
    ],
  },
  // A PNG's data against its header's size, and the sampler that decodes only what passes it.
  "png-bounds": {
    mutate: ["app/lib/png-data.server.ts", "app/lib/picture-sample.server.ts"],
    tests: ["tests/unit/lib/png-data.test.ts", "tests/unit/lib/picture-sample.test.ts"],
  },
  // Request bodies: the server's bound (declared and chunked) and the capped stream reader.
  "body-bounds": {
    mutate: ["app/server/request-body.server.ts", "app/lib/body.server.ts"],
    tests: ["tests/unit/platform/request-body.test.ts", "tests/unit/keys/keypath.test.ts"],
  },
};

const wanted = process.argv.slice(2).filter((a) => a !== "--");
const names = wanted.length ? wanted : Object.keys(MODULES);
for (const n of names)
  if (!MODULES[n]) throw new Error(`unknown module ${n}; known: ${Object.keys(MODULES).join(", ")}`);

mkdirSync(join(root, "reports/mutation"), { recursive: true });
const results: {
  name: string;
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  score: number;
}[] = [];

for (const name of names) {
  const m = MODULES[name]!;
  const reportFile = `reports/mutation/${name}.json`;
  const config = {
    $schema: "./node_modules/@stryker-mutator/core/schema/stryker-schema.json",
    testRunner: "command",
    commandRunner: {
      command: `${Object.entries(m.env ?? {})
        .map(([k, v]) => `${k}=${v} `)
        .join("")}bun test ${m.tests.join(" ")} --timeout 60000 --bail`,
    },
    mutate: m.mutate,
    coverageAnalysis: "off",
    concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
    timeoutMS: 60_000,
    reporters: ["clear-text", "json"],
    jsonReporter: { fileName: reportFile },
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
    tempDirName: `.stryker-tmp/${name}`,
    ignorePatterns: ["build", "dist", "data", "test-results", "reports", "docs/screens", ".tools"],
    cleanTempDir: "always",
  };
  const configFile = join(root, `.stryker-tmp/${name}.config.json`);
  mkdirSync(join(root, ".stryker-tmp"), { recursive: true });
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  console.log(`\n=== mutate ${name}: ${m.mutate.join(", ")} ← ${m.tests.join(", ")}`);
  const proc = Bun.spawn(
    [process.execPath, join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", configFile],
    {
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    },
  );
  await proc.exited;
  const report = JSON.parse(readFileSync(join(root, reportFile), "utf8")) as {
    files: Record<string, { mutants: { status: string }[] }>;
  };
  const statuses = Object.values(report.files).flatMap((f) => f.mutants.map((x) => x.status));
  const count = (s: string) => statuses.filter((x) => x === s).length;
  const killed = count("Killed") + count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + survived + noCoverage;
  results.push({
    name,
    killed,
    survived,
    noCoverage,
    timeout: count("Timeout"),
    score: valid ? (100 * killed) / valid : 100,
  });
}

console.log("\n──────── mutation scores ────────");
for (const r of results) {
  console.log(
    `${r.name.padEnd(14)} ${r.score.toFixed(1).padStart(5)} %  killed ${r.killed} (timeouts ${r.timeout}), survived ${r.survived}, no coverage ${r.noCoverage}`,
  );
}
