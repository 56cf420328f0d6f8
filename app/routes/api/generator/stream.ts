import { statusStream } from "~/domain/generations/stream.server";
import { api } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { callerStillValid } from "~/http/identity.server";

const E = endpoint("/api/generator/stream");

// docs/design.md §10: Server-Sent Events of one task's status; the same auth as the JSON endpoints.
export const loader = api({
  route: E.path,
  method: "GET",
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services, request }) => {
    const stream = await statusStream(services.db, caller.user.id, input.gen_id, {
      signal: request.signal,
      // A key revoked or a session ended while the stream is open closes it.
      authorized: () => callerStillValid(request, services, caller),
    });
    return {
      response: new Response(stream, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          "x-accel-buffering": "no",
        },
      }),
    };
  },
});
// Any other method: 405 with `Allow: GET`.
export const action = loader;
