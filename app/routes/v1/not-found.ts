import { openAiErrorResponse } from "~/http/openai/respond.server";

// Other /v1 paths: OpenAI's 404 shape, so an OpenAI client reads "not supported" rather than an HTML page.
const notFound = ({ request }: { request: Request }) =>
  openAiErrorResponse({
    status: 404,
    type: "invalid_request_error",
    code: "unknown_url",
    message: `Unrecognized request URL (${request.method}: ${new URL(request.url).pathname}). Atelier answers POST /v1/images/generations and POST /v1/images/edits.`,
  });
export const action = notFound;
export const loader = notFound;
