#!/usr/bin/env bun
/**
 * Smoke test of the compiled executable: copy dist/atelier alone into
 * an empty folder, start it, and walk a user's path over HTTP, then back up the
 * live database with the same executable and open the copy.
 * Usage: bun run compile && bun tests/smoke/binary.ts
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAIFake } from "../fakes/openai";
import { Client } from "../support/client";
import { noisyPng } from "../support/images";
import { freePort } from "../support/server";

const root = join(import.meta.dir, "../..");
const bin = join(root, "dist/atelier");
if (!existsSync(bin)) throw new Error("dist/atelier is missing: run `bun run compile` first");

const dir = mkdtempSync(join(tmpdir(), "atelier-smoke-"));
copyFileSync(bin, join(dir, "atelier"));
Bun.spawnSync(["chmod", "+x", join(dir, "atelier")]);
const exe = join(dir, "atelier");
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const env = {
  PATH: process.env.PATH!,
  PORT: String(port),
  HOST: "127.0.0.1",
  PUBLIC_URL: url,
  SIMULATOR_DELAY_MS: "100",
  LOG_LEVEL: "warn",
};

let failures = 0;
let passes = 0;
async function check(name: string, fn: () => Promise<void> | void) {
  try {
    await fn();
    passes++;
    console.log(`  ✓ ${name}`);
  } catch (e) {
    failures++;
    console.log(`  ✗ ${name}: ${(e as Error).message}`);
  }
}
function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

console.log(`binary smoke test in ${dir}`);
await check("version and --help", () => {
  const v = Bun.spawnSync([exe, "version"], { cwd: dir, env });
  assert(v.exitCode === 0 && /^\d+\.\d+\.\d+/.test(v.stdout.toString()), `version: ${v.stdout}`);
  for (const cmd of [["--help"], ["serve", "--help"], ["migrate", "--help"], ["backup", "--help"]]) {
    const h = Bun.spawnSync([exe, ...cmd], { cwd: dir, env });
    assert(h.exitCode === 0 && h.stdout.toString().includes("Usage"), `${cmd.join(" ")}: ${h.stdout}`);
  }
});

const proc = Bun.spawn([exe], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
try {
  await check("starts alone in an empty folder and creates its database", async () => {
    const t0 = Date.now();
    for (;;) {
      try {
        if ((await fetch(`${url}/api/health`)).ok) break;
      } catch {}
      if (Date.now() - t0 > 15_000) throw new Error("not healthy after 15 s");
      await Bun.sleep(20);
    }
    assert(existsSync(join(dir, "data/atelier.db")), "no data/atelier.db");
  });

  const api = new Client(url);
  let cookie = "";
  await check(
    "runs in production mode with no configuration: secret generated 0600, anonymous demo calls refused",
    async () => {
      const secret = join(dir, "data/.auth-secret");
      assert(existsSync(secret) && (statSync(secret).mode & 0o777) === 0o600, "no 0600 data/.auth-secret");
      assert((statSync(join(dir, "data")).mode & 0o777) === 0o700, "data/ is not 0700");
      const demo = await api.post("/api/demo/gen-text", {
        provider: "openrouter",
        model: "openai/gpt-4o-mini",
        prompt: "hi",
      });
      assert(demo.body.message === "no auth, please sign-in", `demo answered ${JSON.stringify(demo.body)}`);
    },
  );
  await check("serves the UI with its embedded client assets", async () => {
    const html = await (await fetch(`${url}/sign-up`)).text();
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    assert(css, "no stylesheet link in /sign-up");
    const r = await fetch(url + css);
    assert(r.ok && r.headers.get("content-type")?.includes("text/css"), `stylesheet: HTTP ${r.status}`);
  });
  await check("serves its embedded scripts pre-compressed (brotli, gzip) and immutable", async () => {
    const html = await (await fetch(`${url}/sign-up`)).text();
    const script = /(\/assets\/[\w.-]+\.js)/.exec(html)?.[1];
    assert(script, "no script in /sign-up");
    for (const coding of ["br", "gzip"]) {
      const r = await fetch(url + script, { headers: { "accept-encoding": coding }, decompress: false } as RequestInit);
      assert(
        r.headers.get("content-encoding") === coding,
        `${script}: ${coding} answered ${r.headers.get("content-encoding")}`,
      );
      assert(
        r.headers.get("cache-control")?.includes("immutable"),
        `${script}: cache-control ${r.headers.get("cache-control")}`,
      );
    }
  });

  await check("sign up and read the profile", async () => {
    const s = await api.signUp("smoke@example.test", { name: "Smoke" });
    cookie = s.cookie;
    const r = await api.post("/api/get-user-info", undefined, { cookie });
    assert(r.body.code === 0 && r.body.data.email === "smoke@example.test", JSON.stringify(r.body));
  });

  await check("check in: one credit added, the second call adds none", async () => {
    const first = await api.post("/api/ping", undefined, { cookie });
    const second = await api.post("/api/ping", undefined, { cookie });
    assert(first.body.code === 0 && second.body.code === 0, JSON.stringify([first.body, second.body]));
    const credits = await api.post("/api/get-user-credits", undefined, { cookie });
    assert(credits.body.data.left_credits === 11, `left_credits ${credits.body.data.left_credits}, want 11`);
  });

  await check("checkpoints the WAL on its worker thread: the database file alone holds what was written", async () => {
    // SQLite's own checkpoint would wait for 1,000 pages of WAL; the checkpointer (a Blob-URL worker) copies within a tick.
    for (let i = 0; ; i++) {
      const alone = join(dir, `alone-${i}.db`);
      copyFileSync(join(dir, "data/atelier.db"), alone);
      const copy = new Database(alone, { readonly: true });
      let n = 0;
      try {
        n = (
          copy
            .query("SELECT count(*) AS n FROM checkins c JOIN user u ON u.id = c.user_id WHERE u.email = ?")
            .get("smoke@example.test") as { n: number }
        ).n;
      } catch {} // no such table yet: not even the migrations are in the file
      copy.close();
      rmSync(alone, { force: true });
      if (n === 1) break;
      assert(i < 50, "after 5 s the database file still lacks the check-in (no checkpoint ran)");
      await Bun.sleep(100);
    }
  });

  await check("create a simulated image generation and fetch its result file", async () => {
    const g = await api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a smoke test fox" },
      { cookie },
    );
    assert(g.body.code === 0, JSON.stringify(g.body));
    const id = g.body.data.gen_id;
    let d: any;
    for (let i = 0; i < 100; i++) {
      d = (await api.post("/api/generator/query", { gen_id: id }, { cookie })).body.data;
      if (d.status === "completed" || d.status === "failed") break;
      await Bun.sleep(100);
    }
    assert(d.status === "completed", `status ${d.status} ${d.error_message ?? ""}`);
    const res = await fetch(d.result_urls[0]);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert(
      res.ok && res.headers.get("content-type")?.startsWith("image/png"),
      `result: HTTP ${res.status} ${res.headers.get("content-type")}`,
    );
    assert(bytes[0] === 0x89 && bytes[1] === 0x50, "result is not a PNG");
    assert(readdirSync(join(dir, "data/media")).includes(id), "result not stored under data/media");
    const credits = await api.post("/api/get-user-credits", undefined, { cookie });
    assert(
      credits.body.data.left_credits === 8,
      `left_credits ${credits.body.data.left_credits}, want 8 after a 3-credit task`,
    );
  });

  await check("the completed picture gets its blurred placeholder from the embedded worker thread", async () => {
    // No inline fallback exists: a placeholder here was computed by the worker entry point bundled into the executable.
    for (let i = 0; ; i++) {
      const db = new Database(join(dir, "data/atelier.db"), { readonly: true });
      const row = db
        .query("SELECT placeholder FROM generations WHERE status = 'completed' AND ai_type = 'image'")
        .get() as {
        placeholder: string | null;
      } | null;
      db.close();
      if (row?.placeholder) {
        assert(/^[A-Za-z0-9+/]{20,44}={0,2}$/.test(row.placeholder), `placeholder ${row.placeholder}`);
        break;
      }
      assert(i < 100, "after 10 s the completed picture still has no placeholder");
      await Bun.sleep(100);
    }
  });

  await check("admin CLI of the same executable grants credits", async () => {
    const a = Bun.spawnSync([exe, "admin", "grant-credits", "--email", "smoke@example.test", "--credits", "5"], {
      cwd: dir,
      env,
    });
    assert(a.exitCode === 0, `admin exit ${a.exitCode}: ${a.stderr}`);
    const credits = await api.post("/api/get-user-credits", undefined, { cookie });
    assert(credits.body.data.left_credits === 13, `left_credits ${credits.body.data.left_credits}, want 13`);
  });

  await check("buy a credit pack through the simulated checkout (no Stripe key)", async () => {
    const r = await api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie });
    assert(r.body.code === 0, JSON.stringify(r.body));
    const checkout = new URL(r.body.data.checkout_url);
    const paid = await fetch(`${url}${checkout.pathname}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: url, cookie },
      body: new URLSearchParams({ token: checkout.searchParams.get("token")!, outcome: "pay" }),
    });
    assert(paid.status === 302, `checkout page: HTTP ${paid.status}`);
    const credits = await api.post("/api/get-user-credits", undefined, { cookie });
    assert(
      credits.body.data.left_credits === 113,
      `left_credits ${credits.body.data.left_credits}, want 113 after a 100-credit pack`,
    );
  });

  await check("back up the live database and open the copy", async () => {
    const target = join(dir, "backups/atelier-copy.db");
    const b = Bun.spawnSync([exe, "backup", target], { cwd: dir, env });
    assert(b.exitCode === 0, `backup exit ${b.exitCode}: ${b.stderr}`);
    const copy = new Database(target, { readonly: true });
    const row = copy.query("SELECT email FROM user WHERE email = ?").get("smoke@example.test") as {
      email: string;
    } | null;
    const gens = copy.query("SELECT count(*) AS n FROM generations WHERE status = 'completed'").get() as { n: number };
    copy.close();
    assert(row?.email === "smoke@example.test", "the copy lacks the user");
    assert(gens.n === 1, `the copy has ${gens.n} completed generations, want 1`);
  });

  await check("a simulated video is an H.264 MP4 rendered inside the executable (mp4-muxer bundled)", async () => {
    const g = await api.post(
      "/api/generator/generate",
      {
        ai_type: "video",
        provider: "kling",
        model: "kling-v1",
        prompt: "a smoke test lighthouse",
        options: { aspect_ratio: "9:16", duration: 5 },
      },
      { cookie },
    );
    assert(g.body.code === 0, JSON.stringify(g.body));
    let d: any;
    for (let i = 0; i < 100; i++) {
      d = (await api.post("/api/generator/query", { gen_id: g.body.data.gen_id }, { cookie })).body.data;
      if (d.status === "completed" || d.status === "failed") break;
      await Bun.sleep(100);
    }
    assert(d.status === "completed", `status ${d.status} ${d.error_message ?? ""}`);
    const res = await fetch(d.result_urls[0]);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert(res.headers.get("content-type") === "video/mp4", `content-type ${res.headers.get("content-type")}`);
    assert(new TextDecoder().decode(bytes.subarray(4, 8)) === "ftyp", "result is not an MP4");
  });
  await check("a real-size picture gets WebP renditions made by the sharp embedded in the executable", async () => {
    // From the OpenAI fake: a 1024² noisy PNG of ~3 MB (the simulator's pictures are too small to need renditions),
    // on a second instance of the executable (a provider key turns off the simulated checkout checked above).
    const openai = startOpenAIFake();
    openai.picture = noisyPng(1024, 1024);
    const dir2 = mkdtempSync(join(tmpdir(), "atelier-smoke-media-"));
    copyFileSync(exe, join(dir2, "atelier"));
    const port2 = await freePort();
    const url2 = `http://127.0.0.1:${port2}`;
    const second = Bun.spawn([join(dir2, "atelier")], {
      cwd: dir2,
      env: {
        ...env,
        PORT: String(port2),
        PUBLIC_URL: url2,
        SIGNUP_CREDITS: "20",
        OPENAI_API_KEY: openai.apiKey,
        OPENAI_BASE_URL: openai.baseUrl,
      },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      for (
        let i = 0;
        !(await fetch(`${url2}/api/health`).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      ) {
        assert(i < 150, "the second instance is not healthy after 15 s");
        await Bun.sleep(100);
      }
      const api2 = new Client(url2);
      const { cookie: cookie2 } = await api2.signUp("media@example.test");
      const g = await api2.post(
        "/api/generator/generate",
        { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a real-size harbour" },
        { cookie: cookie2 },
      );
      assert(g.body.code === 0, JSON.stringify(g.body));
      const id = g.body.data.gen_id as string;
      for (let i = 0; ; i++) {
        const db = new Database(join(dir2, "data/atelier.db"), { readonly: true });
        const row = db.query("SELECT status, result_urls, renditions FROM generations WHERE id = ?").get(id) as {
          status: string;
          result_urls: string | null;
          renditions: string | null;
        } | null;
        db.close();
        assert(row?.status !== "failed", "the real-size task failed");
        if (row?.renditions) {
          const [info] = JSON.parse(row.renditions) as { width: number; widths: number[] }[];
          assert(info?.width === 1024 && info.widths.join() === "256,384,512,1024", `renditions ${row.renditions}`);
          const original = (JSON.parse(row.result_urls!) as string[])[0]!;
          const rendition = original.replace(/\.[a-z]+$/, ".w384.webp");
          const r = await fetch(rendition);
          const bytes = new Uint8Array(await r.arrayBuffer());
          assert(r.ok && r.headers.get("content-type") === "image/webp", `${rendition}: HTTP ${r.status}`);
          assert(new TextDecoder().decode(bytes.slice(8, 12)) === "WEBP", "the rendition is not a WebP file");
          break;
        }
        assert(i < 300, "after 30 s the real-size picture still has no renditions");
        await Bun.sleep(100);
      }
    } finally {
      second.kill("SIGTERM");
      await second.exited;
      await openai.stop();
      rmSync(dir2, { recursive: true, force: true });
    }
  });
} finally {
  proc.kill("SIGTERM");
  const code = await proc.exited;
  if (code !== 0) {
    failures++;
    console.log(`  ✗ graceful shutdown: exit code ${code}`);
  } else {
    passes++;
    console.log("  ✓ graceful shutdown on SIGTERM (exit 0)");
  }
  if (failures) console.log(await new Response(proc.stderr).text());
  rmSync(dir, { recursive: true, force: true });
}
console.log(`binary smoke: ${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
