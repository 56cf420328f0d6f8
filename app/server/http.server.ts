/**
 * The production HTTP server: `Bun.serve` answering static files from the
 * client build and handing everything else to React Router. Adds a request id
 * (X-Request-Id) and a structured access log line to every request.
 */

import { createRequestHandler, type ServerBuild } from "react-router";
import { errorResponse } from "~/http/api.server";
import { setBaselineHeaders } from "~/http/security-headers.server";
import { closeServices, initServices } from "~/http/services.server";
import { describeDatabase, getConfig, requireAuthSecret } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { flushAccessLog, log, requestContext } from "~/lib/log.server";
import { checkMailerInBackground, createMailer } from "~/lib/mail.server";
import { getMetrics } from "~/lib/metrics.server";
import { publicOriginAliases } from "~/lib/origins";
import { beginShutdown } from "~/lib/shutdown.server";
import { annotate, tracingOn, withSpan } from "~/lib/tracing.server";
import { uploadBodyBytes } from "~/lib/upload.server";
import { APP_VERSION } from "~/lib/version";
import { CliError } from "./cli-error";
import { compressResponse } from "./compression.server";
import { bodyBound, boundRequestBody, transportLimit } from "./request-body.server";
import { routeLabeler } from "./route-labels.server";
import { type StaticFile, staticFilesFrom, staticResponse } from "./static-files.server";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type Handler = (args: { request: Request; params: Record<string, string>; context: unknown }) => unknown;
export interface DirectRoute {
  loader?: Handler;
  action?: Handler;
}

/**
 * Resource routes at a fixed path (every JSON endpoint but the splats),
 * dispatched straight to their module: React Router's route matching and data
 * pipeline cost about half of a JSON request's CPU here (docs/performance.md)
 * and do nothing for a resource route without middleware. Pages, splats and
 * any other spelling of a path still go through React Router.
 */
export function directRoutesOf(build: ServerBuild): Map<string, DirectRoute> {
  const out = new Map<string, DirectRoute>();
  const root = build.routes.root?.module as Record<string, unknown> | undefined;
  if (!root || "middleware" in root || "unstable_middleware" in root) return out;
  for (const r of Object.values(build.routes)) {
    if (r?.parentId !== "root" || r.index || !r.path || /[:*?]/.test(r.path)) continue;
    const mod = r.module as unknown as Record<string, unknown>;
    if ("default" in mod || "middleware" in mod || "unstable_middleware" in mod) continue;
    out.set(`/${r.path}`, { loader: mod.loader as Handler | undefined, action: mod.action as Handler | undefined });
  }
  return out;
}

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A page's form post whose fields carry a NUL character: urlencoded (raw or as %00), or a multipart form's text
 * fields (the studio's composer is multipart, for its picture; a file's bytes may hold anything).
 */
async function formHasNul(request: Request): Promise<boolean> {
  if (request.method !== "POST") return false;
  const type = request.headers.get("content-type") ?? "";
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const body = await request.clone().text();
    return body.includes("\0") || /%00/i.test(body);
  }
  if (!type.startsWith("multipart/form-data")) return false;
  const form = await request
    .clone()
    .formData()
    .catch(() => null);
  for (const [name, value] of form ?? [])
    if (name.includes("\0") || (typeof value === "string" && value.includes("\0"))) return true;
  return false;
}
/** Methods counted under their own name in metrics; anything else a client invents is "OTHER". */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** React Router's choice for a resource route: the action for mutations, else the loader. */
async function dispatchDirect(route: DirectRoute, request: Request): Promise<Response | undefined> {
  const fn = MUTATIONS.has(request.method) ? route.action : route.loader;
  if (!fn) return undefined;
  let result: unknown;
  try {
    result = await fn({ request, params: {}, context: {} });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
  if (!(result instanceof Response)) return undefined;
  return request.method === "HEAD" ? new Response(null, { status: result.status, headers: result.headers }) : result;
}

/**
 * The request as the browser sent it: on PUBLIC_URL's origin. Behind a TLS proxy
 * the socket sees `http://127.0.0.1:3000/…` while the browser's Origin is
 * `https://atelier.example.com`; React Router's action check compares the two,
 * so the app always sees the public origin (docs/decisions/047-origin-from-public-url.md). The check itself
 * stays on: a foreign Origin still differs.
 */
export function atPublicOrigin(
  request: Request,
  url: URL,
  publicOrigin: string,
  aliases: readonly string[] = [publicOrigin],
): Request {
  // A loopback PUBLIC_URL opened under another loopback name keeps the name the browser used, so its Origin matches.
  return aliases.includes(url.origin) ? request : new Request(publicOrigin + url.pathname + url.search, request);
}

export type Shutdown = (reason: string) => Promise<void>;
const shutdownHooks: Array<() => Promise<void> | void> = [];
/** Work to finish before the process exits (job runner, flushes). */
export function onShutdown(fn: () => Promise<void> | void) {
  shutdownHooks.push(fn);
}
const startHooks: Array<() => void> = [];
/** Background work that starts with the server (the job runner). */
export function onServe(fn: () => void) {
  startHooks.push(fn);
}

export async function serve(build: ServerBuild, opts: { clientDir: string; staticFiles?: Map<string, StaticFile> }) {
  const started = performance.now();
  // Serving signs sessions: refuse to start without the secret (before opening the database).
  requireAuthSecret(getConfig());
  const { config } = await initServices();
  if (config.engine === "postgres" && !config.S3_BUCKET) {
    // Said by the serving process only (CLI commands on the same database store no media).
    log.warn("media are stored on this node's disk (no S3_BUCKET): other nodes cannot serve them", {
      media_dir: config.mediaDir,
    });
  }
  void checkMailerInBackground(createMailer(config), config.SMTP_URL);
  const handle = createRequestHandler(build, "production");
  const direct = directRoutesOf(build);
  const files = opts.staticFiles ?? staticFilesFrom(opts.clientDir);
  const quiet = config.LOG_LEVEL === "warn" || config.LOG_LEVEL === "error" || config.LOG_LEVEL === "silent";
  const publicOrigin = new URL(config.publicUrl).origin;
  const publicAliases = publicOriginAliases(config.publicUrl);
  const metrics = getMetrics();
  const tracing = tracingOn();
  const routeOf = routeLabeler(build);
  const https = publicOrigin.startsWith("https:");
  const maxBody = bodyBound(config.FILE_MAX_BYTES);

  const server = listen(config, {
    port: config.PORT,
    hostname: config.HOST,
    // Bodies are limited to 1 MiB per endpoint; the server's bound is raised for uploads (two files of FILE_MAX_BYTES,
    // an image edit's picture and mask, plus the multipart framing; app/lib/upload.server.ts counts each route's own
    // bytes) and answered by request-body.server.ts; Bun's ceiling is only its backstop.
    maxRequestBodySize: transportLimit(config.FILE_MAX_BYTES),
    idleTimeout: 120,
    async fetch(request, server) {
      const t0 = performance.now();
      const incoming = request.headers.get("x-request-id");
      const requestId = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
      const url = URL.parse(request.url);
      let response: Response;
      // A chunked upload is answered as soon as it passes its route's own bound (one file for POST /api/files).
      const bound = url?.pathname === "/api/files" ? uploadBodyBytes(config.FILE_MAX_BYTES) : maxBody;
      const bounded = url ? await boundRequestBody(request, bound, config.FILE_MAX_BYTES) : request;
      if (!url) {
        // No usable Host (an HTTP/1.0 request with `Host:` empty): nothing to route, and nothing to alert about.
        response = errorResponse(new AppError("INVALID_PARAMS", { reason: "bad request URL or Host header" }));
        response = new Response(response.body, { status: 400, headers: response.headers });
      } else if (bounded instanceof AppError) {
        response = errorResponse(bounded);
      } else if ((request.method === "GET" || request.method === "HEAD") && files.has(url.pathname)) {
        response = staticResponse(request, files.get(url.pathname)!);
      } else if (!url.pathname.startsWith("/api/") && (await formHasNul(bounded))) {
        // Refused before any action reads it: PostgreSQL cannot hold a NUL in text (the JSON API refuses it too).
        response = new Response("Bad Request: a form field contains a NUL character\n", {
          status: 400,
          headers: { "Content-Type": "text/plain; charset=utf-8" },
        });
      } else {
        const route = direct.get(url.pathname);
        const publicRequest = atPublicOrigin(bounded, url, publicOrigin, publicAliases);
        // The peer address only when something asks (demo limits, auth throttling): most requests never do.
        const context = {
          requestId,
          get clientIp() {
            return server.requestIP(request)?.address;
          },
        };
        const dispatch = async () => {
          try {
            return (route && (await dispatchDirect(route, publicRequest))) || (await handle(publicRequest));
          } catch (error) {
            return errorResponse(error, publicRequest);
          }
        };
        response = await requestContext.run(
          context,
          tracing
            ? () =>
                withSpan(
                  `${request.method} ${routeOf(url.pathname)}`,
                  {
                    "http.request.method": request.method,
                    "url.path": url.pathname,
                    "http.route": routeOf(url.pathname),
                  },
                  async () => {
                    const answer = await dispatch();
                    annotate({ "http.response.status_code": answer.status, "atelier.request_id": requestId });
                    return answer;
                  },
                  { root: true },
                )
            : dispatch,
        );
        response = await compressResponse(request, response);
      }
      response.headers.set("X-Request-Id", requestId);
      setBaselineHeaders(response.headers, https);
      if (metrics) {
        const route = !url ? "bad-request" : files.has(url.pathname) ? "static" : routeOf(url.pathname);
        const method = KNOWN_METHODS.has(request.method) ? request.method : "OTHER";
        metrics.httpRequests.labels(route, method, String(response.status)).inc();
        metrics.httpDuration.labels(route).observe((performance.now() - t0) / 1000);
      }
      if (!quiet)
        log.access(
          requestId,
          request.method,
          url?.pathname ?? "-",
          response.status,
          Math.round((performance.now() - t0) * 100) / 100,
        );
      return response;
    },
    error(error) {
      return errorResponse(error);
    },
  });

  for (const fn of startHooks) fn();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    beginShutdown(); // held responses answer now, so stop() does not wait out their timers
    await server.stop();
    for (const fn of shutdownHooks) {
      try {
        await fn();
      } catch (error) {
        log.error("shutdown hook failed", { error });
      }
    }
    await closeServices();
    flushAccessLog();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("uncaughtException", onUncaught);

  const ready = {
    open: config.publicUrl,
    listen: `http://${config.HOST}:${server.port}`,
    version: APP_VERSION,
    mode: config.NODE_ENV,
    database: describeDatabase(config),
    startup_ms: Math.round(performance.now() - started),
  };
  // One line: a person at a terminal reads where to go; a log collector gets the JSON.
  if (process.stdout.isTTY)
    process.stdout.write(
      `Atelier ${APP_VERSION} is ready: open ${ready.open} (${ready.mode}, listening on ${ready.listen})\n`,
    );
  else log.info("ready", ready);
  return server;
}

type ServeOptions = Parameters<typeof Bun.serve>[0];

/** Bun.serve, with a taken port or address reported as one line (CliError) instead of a stack trace. */
function listen(config: { PORT: number; HOST: string }, options: ServeOptions) {
  try {
    return Bun.serve(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new CliError(
        `port ${config.PORT} on ${config.HOST} is already in use: stop the other server or set PORT to a free port`,
      );
    if (code === "EACCES")
      throw new CliError(
        `not allowed to listen on ${config.HOST}:${config.PORT}: use a port above 1023 or run with the needed rights`,
      );
    if (code === "EADDRNOTAVAIL") throw new CliError(`HOST ${config.HOST} is not an address of this machine`);
    throw error;
  }
}

/** Socket errors a connection pool recovers from by reconnecting (a database restart, a peer gone). */
const CONNECTION_ERRORS = new Set(["ECONNRESET", "EPIPE", "ECONNREFUSED", "ETIMEDOUT"]);

/**
 * An error no code caught. A socket's connection error surfacing outside any request (the database restarted under
 * a pooled connection) is logged and served through: the pool reconnects and requests meanwhile answer 503 busy.
 * Anything else is a bug whose state we cannot trust: logged, then the process exits for its supervisor to restart.
 */
export const recoverableConnectionError = (error: unknown) => {
  const e = error as { code?: unknown; syscall?: unknown } | null;
  return typeof e?.syscall === "string" && typeof e.code === "string" && CONNECTION_ERRORS.has(e.code);
};

function onUncaught(error: Error) {
  if (recoverableConnectionError(error)) {
    log.warn("connection error outside a request", { error });
    return;
  }
  log.error("uncaught exception", { error });
  flushAccessLog();
  process.exit(1);
}
