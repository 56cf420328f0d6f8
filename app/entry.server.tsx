import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import type { EntryContext, RouterContextProvider } from "react-router";
import { type HandleErrorFunction, isRouteErrorResponse, ServerRouter } from "react-router";
import { documentCspExtras, newNonce, setDocumentHeaders } from "./http/security-headers.server";
import { initServices } from "./http/services.server";
import { getConfig, requireAuthSecret } from "./lib/config.server";
import { log } from "./lib/log.server";

// The CLI (serve, migrate, admin, backup, version) lives in the server bundle,
// so the HTTP server, the job runner and the routes share one copy of every module.
export { runCli } from "./server/cli.server";

// The dev server has no start-up step of its own: on PostgreSQL (DATABASE_URL) open the database before the first request.
if (import.meta.env.DEV && process.env.DATABASE_URL) {
  requireAuthSecret(getConfig());
  await initServices();
}

export const streamTimeout = 5_000;

/** Server errors go to the structured log; 404s and aborted requests are not errors. */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  log.error("request failed", { error, path: new URL(request.url).pathname });
};

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  _loadContext: RouterContextProvider,
) {
  const nonce = newNonce();
  setDocumentHeaders(responseHeaders, nonce, documentCspExtras(getConfig()));
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  let shellRendered = false;
  const userAgent = request.headers.get("user-agent");
  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} nonce={nonce} />, {
    nonce,
    signal: AbortSignal.timeout(streamTimeout + 1000),
    onError(error: unknown) {
      responseStatusCode = 500;
      if (shellRendered) console.error(error);
    },
  });
  shellRendered = true;
  if ((userAgent && isbot(userAgent)) || routerContext.isSpaMode) await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}
