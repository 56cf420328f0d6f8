/**
 * The endpoint table: every JSON endpoint with its auth mode, the zod schema
 * that validates its body, the zod schema of its response `data`, and the
 * errors it can answer. API routes take their `auth` and `body` from here, the
 * OpenAPI document (GET /api/openapi.json) and the /docs page are generated
 * from it, and an integration test checks real responses against `response`,
 * so the reference cannot drift from the code. Its rows live by area in app/http/endpoints/;
 * their order here is the order of the reference.
 */

import type { ErrorCode } from "~/lib/errors";
import { ACCOUNT_ENDPOINTS } from "./endpoints/account.server";
import { ADMIN_ENDPOINTS } from "./endpoints/admin.server";
import { BILLING_ENDPOINTS } from "./endpoints/billing.server";
import { CATALOG_ENDPOINTS } from "./endpoints/catalog.server";
import { CODE_ENDPOINTS } from "./endpoints/codes.server";
import { COLLECTION_ENDPOINTS } from "./endpoints/collections.server";
import type { EndpointDef } from "./endpoints/def.server";
import { DEMO_ENDPOINTS } from "./endpoints/demo.server";
import { FILE_ENDPOINTS } from "./endpoints/files.server";
import { GENERATION_ENDPOINTS } from "./endpoints/generation.server";
import { KEY_ENDPOINTS } from "./endpoints/keys.server";
import { PLATFORM_ENDPOINTS } from "./endpoints/platform.server";
import { PROVENANCE_ENDPOINTS } from "./endpoints/provenance.server";
import { REPORT_ENDPOINTS } from "./endpoints/reports.server";
import { SERVICE_ENDPOINTS } from "./endpoints/service.server";
import { SIGN_IN_ENDPOINTS } from "./endpoints/sign-in.server";
import { WEBHOOK_ENDPOINTS } from "./endpoints/webhooks.server";

export type { AuthMode, EndpointDef } from "./endpoints/def.server";
export { GENERATE_MESSAGE, QueryResponseSchema } from "./endpoints/generation.server";

export const ENDPOINTS = {
  ...CATALOG_ENDPOINTS,
  ...GENERATION_ENDPOINTS,
  ...FILE_ENDPOINTS,
  ...PROVENANCE_ENDPOINTS,
  ...COLLECTION_ENDPOINTS,
  ...WEBHOOK_ENDPOINTS,
  ...DEMO_ENDPOINTS,
  ...ACCOUNT_ENDPOINTS,
  ...BILLING_ENDPOINTS,
  ...CODE_ENDPOINTS,
  ...KEY_ENDPOINTS,
  ...PLATFORM_ENDPOINTS,
  ...ADMIN_ENDPOINTS,
  ...SERVICE_ENDPOINTS,
  ...SIGN_IN_ENDPOINTS,
  ...REPORT_ENDPOINTS,
} as const satisfies Record<string, EndpointDef>;

export type EndpointPath = keyof typeof ENDPOINTS;

export const endpoint = <P extends EndpointPath>(path: P): (typeof ENDPOINTS)[P] & { path: P } => ({
  ...ENDPOINTS[path],
  path,
});

/** The errors every caller can meet whatever the endpoint (HTTP statuses other than 200). */
export const TRANSPORT_ERRORS: readonly ErrorCode[] = [
  "API_KEY_NOT_FOUND",
  "API_KEY_REVOKED",
  "ACCOUNT_SUSPENDED",
  "RATE_LIMITED",
  "CROSS_SITE",
  "METHOD_NOT_ALLOWED",
  "NOT_FOUND",
  "INTERNAL",
];
