import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  // ---- JSON API (resource routes; spec §4)
  route("api/auth/*", "routes/api/auth.ts"),
  route("api/health", "routes/api/health.ts"),
  route("api/get-user-info", "routes/api/get-user-info.ts"),
  route("api/demo/gen-text", "routes/api/demo/gen-text.ts"),
  route("api/demo/gen-stream-text", "routes/api/demo/gen-stream-text.ts"),
  route("api/*", "routes/api/not-found.ts"),

  // ---- user center (form-driven pages)
  layout("routes/layout.tsx", [
    index("routes/home.tsx"),
    route("sign-up", "routes/sign-up.tsx"),
    route("sign-in", "routes/sign-in.tsx"),
    route("sign-out", "routes/sign-out.tsx"),
    route("account", "routes/account.tsx"),
    route("playground", "routes/playground.tsx"),
  ]),
] satisfies RouteConfig;
