import { index, layout, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  // ---- JSON API (resource routes; spec §4)
  route("api/auth/*", "routes/api/auth.ts"),
  route("api/health", "routes/api/health.ts"),
  route("api/get-user-info", "routes/api/get-user-info.ts"),
  route("api/keys/create", "routes/api/keys/create.ts"),
  route("api/keys/list", "routes/api/keys/list.ts"),
  route("api/keys/revoke", "routes/api/keys/revoke.ts"),
  route("api/keys/update", "routes/api/keys/update.ts"),
  route("api/usage", "routes/api/usage.ts"),
  route("api/get-user-credits", "routes/api/get-user-credits.ts"),
  route("api/get-user-subscription", "routes/api/get-user-subscription.ts"),
  route("api/ping", "routes/api/ping.ts"),
  route("api/update-invite", "routes/api/update-invite.ts"),
  route("api/add-feedback", "routes/api/add-feedback.ts"),
  route("api/admin/grant-credits", "routes/api/admin/grant-credits.ts"),
  route("api/admin/create-subscription", "routes/api/admin/create-subscription.ts"),
  route("api/admin/list-users", "routes/api/admin/list-users.ts"),
  route("api/admin/suspend-user", "routes/api/admin/suspend-user.ts"),
  route("api/admin/codes/create", "routes/api/admin/codes/create.ts"),
  route("api/redeem", "routes/api/redeem.ts"),
  route("api/provenance/verify", "routes/api/provenance/verify.ts"),
  route("api/collections/create", "routes/api/collections/create.ts"),
  route("api/collections/list", "routes/api/collections/list.ts"),
  route("api/collections/add", "routes/api/collections/add.ts"),
  route("api/collections/remove", "routes/api/collections/remove.ts"),
  route("api/collections/rename", "routes/api/collections/rename.ts"),
  route("api/collections/delete", "routes/api/collections/delete.ts"),
  route("api/collections/items", "routes/api/collections/items.ts"),
  route("api/account/export", "routes/api/account/export.ts"),
  route("api/account/delete", "routes/api/account/delete.ts"),
  route("api/admin/models/list", "routes/api/admin/models/list.ts"),
  route("api/admin/models/upsert", "routes/api/admin/models/upsert.ts"),
  route("api/generator/generate", "routes/api/generator/generate.ts"),
  route("api/generator/quote", "routes/api/generator/quote.ts"),
  route("api/generator/query", "routes/api/generator/query.ts"),
  route("api/generator/history", "routes/api/generator/history.ts"),
  route("api/generator/cancel", "routes/api/generator/cancel.ts"),
  route("api/generator/stream", "routes/api/generator/stream.ts"),
  route("api/files", "routes/api/files/upload.ts"),
  route("api/files/list", "routes/api/files/list.ts"),
  route("api/files/delete", "routes/api/files/delete.ts"),
  route("api/webhooks/create", "routes/api/webhooks/create.ts"),
  route("api/webhooks/list", "routes/api/webhooks/list.ts"),
  route("api/webhooks/delete", "routes/api/webhooks/delete.ts"),
  route("api/webhooks/rotate-secret", "routes/api/webhooks/rotate-secret.ts"),
  route("api/webhooks/deliveries", "routes/api/webhooks/deliveries.ts"),
  route("api/webhooks/resend", "routes/api/webhooks/resend.ts"),
  route("api/webhooks/update", "routes/api/webhooks/update.ts"),
  route("api/webhooks/test", "routes/api/webhooks/test.ts"),
  route("api/demo/gen-text", "routes/api/demo/gen-text.ts"),
  route("api/demo/gen-stream-text", "routes/api/demo/gen-stream-text.ts"),
  route("api/demo/gen-image", "routes/api/demo/gen-image.ts"),
  route("api/models", "routes/api/models.ts"),
  route("api/billing/products", "routes/api/billing/products.ts"),
  route("api/billing/checkout", "routes/api/billing/checkout.ts"),
  route("api/billing/webhook/stripe", "routes/api/billing/webhook/stripe.ts"),
  route("api/openapi.json", "routes/api/openapi.ts"),
  route("api/reports", "routes/api/reports/create.ts"),
  route("api/admin/reports/list", "routes/api/admin/reports/list.ts"),
  route("api/admin/reports/resolve", "routes/api/admin/reports/resolve.ts"),
  route("api/*", "routes/api/not-found.ts"),

  // ---- machine clients with an API key: MCP (docs/mcp.md) and the OpenAI-compatible images API (docs/openai-compat.md)
  route("mcp", "routes/mcp.ts"),
  route("v1/images/generations", "routes/v1/images-generations.ts"),
  route("v1/images/edits", "routes/v1/images-edits.ts"),
  route("v1/*", "routes/v1/not-found.ts"),

  // ---- "Continue with <provider>": a form post that starts the provider's sign-in (no JavaScript needed)
  route("sign-in/provider", "routes/sign-in-provider.tsx"),
  route("account/sign-in", "routes/account-sign-in.tsx"),

  // ---- the admin dashboard's tables as CSV (admins only)
  route("admin/dashboard.csv", "routes/admin-dashboard-csv.ts"),

  // ---- the language menu's form post (sets the `lng` cookie; docs/languages.md)
  route("language", "routes/language.ts"),

  // ---- the account page's data download (docs/privacy.md)
  route("account/export", "routes/account-export.ts"),

  // ---- Prometheus metrics (off unless METRICS_TOKEN is set; docs/operating.md)
  route("metrics", "routes/metrics.ts"),

  // ---- stored result files (local storage; docs/design.md §4)
  route("media/*", "routes/media.ts"),

  // ---- input files: to their owner, or to a signed link (docs/api.md "Files")
  route("files/:fileId", "routes/files.ts"),

  // ---- user center (form-driven pages)
  layout("routes/layout.tsx", [
    index("routes/home.tsx"),
    route("sign-up", "routes/sign-up.tsx"),
    route("sign-in", "routes/sign-in.tsx"),
    route("sign-in/two-factor", "routes/sign-in-two-factor.tsx"),
    route("account/two-factor", "routes/account-two-factor.tsx"),
    route("sign-out", "routes/sign-out.tsx"),
    route("verify-email", "routes/verify-email.tsx"),
    route("forgot-password", "routes/forgot-password.tsx"),
    route("reset-password", "routes/reset-password.tsx"),
    route("account", "routes/account.tsx"),
    route("keys", "routes/keys.tsx"),
    route("feedback", "routes/feedback.tsx"),
    route("studio", "routes/studio.tsx"),
    route("playground", "routes/playground.tsx"),
    route("studio/:genId", "routes/studio-detail.tsx"),
    route("docs", "routes/docs.tsx"),
    route("docs/:endpoint", "routes/docs-endpoint.tsx"),
    route("admin", "routes/admin.tsx"),
    route("admin/billing", "routes/admin-billing.tsx"),
    route("admin/models", "routes/admin-models.tsx"),
    route("admin/safety", "routes/admin-safety.tsx"),
    route("content-policy", "routes/content-policy.tsx"),
    route("verify", "routes/verify.tsx"),
    route("admin/reports", "routes/admin-reports.tsx"),
    route("pricing", "routes/pricing.tsx"),
    route("billing/simulated/:checkoutId", "routes/billing-simulated.tsx"),
    // Unknown addresses: a 404 page with the header and navigation.
    route("*", "routes/not-found.tsx"),
  ]),
] satisfies RouteConfig;
