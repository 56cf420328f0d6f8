/**
 * An S3-compatible endpoint for tests: s3rver (a real S3 implementation on
 * npm, storing objects on disk) behind a small proxy that verifies AWS
 * Signature V4 the way S3 does — s3rver itself skips SigV4 checks. Signed
 * requests with a wrong secret get S3's 403 SignatureDoesNotMatch; unsigned
 * requests may only read objects (a public-read bucket). Presigned URLs
 * (query-string SigV4: X-Amz-Signature, X-Amz-Expires) are verified too, and
 * refused once expired, so a test can tell a valid presigned link from a
 * plain object URL.
 */
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

export interface S3Fake {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Every request that reached the proxy, with whether its signature verified (`presigned`: in the query string). */
  log: { method: string; path: string; signed: boolean; verified: boolean; presigned?: boolean }[];
  /** Env vars that point Bun's S3 client (and createS3Storage) at this fake. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const sha256hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

const s3Error = (status: number, code: string, message: string) =>
  new Response(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    {
      status,
      headers: { "content-type": "application/xml" },
    },
  );

/** RFC 3986 encoding as SigV4 wants it for query strings. */
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Recomputes the SigV4 signature of a request (header-based auth). */
export function verifySigV4(
  req: { method: string; url: URL; headers: Headers; body: Uint8Array },
  creds: { accessKeyId: string; secretAccessKey: string },
): { ok: true } | { ok: false; code: string; message: string } {
  const auth = req.headers.get("authorization") ?? "";
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return { ok: false, code: "AuthorizationHeaderMalformed", message: "The authorization header is malformed." };
  const [, keyId, date, region, service, signedHeaders, signature] = m as unknown as string[];
  if (keyId !== creds.accessKeyId)
    return {
      ok: false,
      code: "InvalidAccessKeyId",
      message: "The AWS Access Key Id you provided does not exist in our records.",
    };
  const amzDate = req.headers.get("x-amz-date") ?? "";
  if (!amzDate.startsWith(date!))
    return { ok: false, code: "AccessDenied", message: "x-amz-date does not match the credential scope." };
  const payloadHash = req.headers.get("x-amz-content-sha256") ?? "";
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256hex(req.body)) {
    return {
      ok: false,
      code: "XAmzContentSHA256Mismatch",
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  }
  const query = [...req.url.searchParams.entries()]
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const names = signedHeaders!.split(";");
  const canonicalHeaders = names
    .map((n) => `${n}:${(req.headers.get(n) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalRequest = [req.method, req.url.pathname, query, canonicalHeaders, signedHeaders, payloadHash].join(
    "\n",
  );
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256hex(canonicalRequest)].join("\n");
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, date!), region!), service!), "aws4_request");
  const expected = createHmac("sha256", kSigning).update(stringToSign).digest("hex");
  if (expected !== signature) {
    return {
      ok: false,
      code: "SignatureDoesNotMatch",
      message:
        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    };
  }
  return { ok: true };
}

/**
 * Recomputes a presigned URL's signature (query-string auth: every X-Amz-* parameter but the signature is signed,
 * the payload is UNSIGNED-PAYLOAD) and checks it has not expired.
 */
export function verifyPresigned(
  req: { method: string; url: URL; headers: Headers },
  creds: { accessKeyId: string; secretAccessKey: string },
  now = Date.now(),
): { ok: true } | { ok: false; code: string; message: string } {
  const q = req.url.searchParams;
  const denied = (message: string) => ({ ok: false as const, code: "AccessDenied", message });
  if (q.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") return denied("Unsupported algorithm.");
  const [keyId, date, region, service] = (q.get("X-Amz-Credential") ?? "").split("/");
  if (keyId !== creds.accessKeyId)
    return {
      ok: false,
      code: "InvalidAccessKeyId",
      message: "The AWS Access Key Id you provided does not exist in our records.",
    };
  const amzDate = q.get("X-Amz-Date") ?? "";
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  const expires = Number(q.get("X-Amz-Expires"));
  if (!m || !amzDate.startsWith(date ?? "-") || !Number.isInteger(expires)) return denied("Malformed query auth.");
  const signedAt = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (now > signedAt + expires * 1000) return denied("Request has expired");
  const query = [...q.entries()]
    .filter(([k]) => k !== "X-Amz-Signature")
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signedHeaders = q.get("X-Amz-SignedHeaders") ?? "host";
  const canonicalHeaders = signedHeaders
    .split(";")
    .map((n) => `${n}:${(req.headers.get(n) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalRequest = [
    req.method,
    req.url.pathname,
    query,
    canonicalHeaders,
    signedHeaders,
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256hex(canonicalRequest)].join("\n");
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, date!), region!), service!), "aws4_request");
  const expected = createHmac("sha256", kSigning).update(stringToSign).digest("hex");
  if (expected !== q.get("X-Amz-Signature"))
    return {
      ok: false,
      code: "SignatureDoesNotMatch",
      message:
        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    };
  return { ok: true };
}

export async function startS3Fake(
  opts: { port?: number; bucket?: string; accessKeyId?: string; secretAccessKey?: string; region?: string } = {},
): Promise<S3Fake> {
  const bucket = opts.bucket ?? "atelier-media";
  const accessKeyId = opts.accessKeyId ?? "AKIAFAKEATELIER";
  const secretAccessKey = opts.secretAccessKey ?? "fake/secret/key/for/tests/0123456789";
  const region = opts.region ?? "us-east-1";
  const dir = mkdtempSync(join(tmpdir(), "atelier-s3-"));
  const backend = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket }],
  });
  const { port: backendPort } = await backend.run();
  const log: S3Fake["log"] = [];

  const proxy = Bun.serve({
    port: opts.port ?? 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const body = new Uint8Array(await req.arrayBuffer());
      const signed = req.headers.has("authorization");
      let verified = false;
      if (url.searchParams.has("X-Amz-Signature")) {
        const v = verifyPresigned({ method: req.method, url, headers: req.headers }, { accessKeyId, secretAccessKey });
        log.push({ method: req.method, path: url.pathname, signed: true, verified: v.ok, presigned: true });
        if (!v.ok) return s3Error(403, v.code, v.message);
        const query = new URLSearchParams([...url.searchParams].filter(([k]) => !k.startsWith("X-Amz-")));
        const res = await fetch(`http://127.0.0.1:${backendPort}${url.pathname}${query.size ? `?${query}` : ""}`, {
          method: req.method,
        });
        return new Response(res.body, { status: res.status, headers: res.headers });
      }
      if (signed) {
        const v = verifySigV4(
          { method: req.method, url, headers: req.headers, body },
          { accessKeyId, secretAccessKey },
        );
        if (!v.ok) {
          log.push({ method: req.method, path: url.pathname, signed, verified });
          return s3Error(403, v.code, v.message);
        }
        verified = true;
      } else if (req.method !== "GET" && req.method !== "HEAD") {
        log.push({ method: req.method, path: url.pathname, signed, verified });
        return s3Error(403, "AccessDenied", "Access Denied");
      }
      log.push({ method: req.method, path: url.pathname, signed, verified });
      const headers = new Headers(req.headers);
      for (const h of ["authorization", "x-amz-content-sha256", "x-amz-date", "x-amz-security-token", "host"])
        headers.delete(h);
      const res = await fetch(`http://127.0.0.1:${backendPort}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
  const endpoint = `http://127.0.0.1:${proxy.port}`;
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    region,
    log,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_REGION: region,
    },
    async stop() {
      await proxy.stop(true);
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
