/** The HTTP side of a demo call (app/http/demo-request.server.ts): the client's address, body and headers. */

import { clientIpOf } from "~/domain/demo/access.server";
import type { DemoKind } from "~/domain/demo/billing.server";
import type { DemoCall } from "~/http/demo-request.server";
import { currentClientIp } from "~/lib/log.server";
import { addResponseHeaders, readJsonBody } from "./api.server";
import type { Caller } from "./identity.server";
import type { Services } from "./services.server";

export function demoCallOf(request: Request, services: Services, caller: Caller | null, kind: DemoKind): DemoCall {
  return {
    caller,
    kind,
    ip: clientIpOf(services.config, request, currentClientIp()),
    signal: request.signal,
    readBody: () => readJsonBody(request),
    setHeaders: (headers) => addResponseHeaders(request, headers),
  };
}
