import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  // ---- JSON API (resource routes; spec §4)
  route("api/auth/*", "routes/api/auth.ts"),
  route("api/health", "routes/api/health.ts"),
  route("api/get-user-info", "routes/api/get-user-info.ts"),
  route("api/generator/generate", "routes/api/generator/generate.ts"),
  route("api/generator/query", "routes/api/generator/query.ts"),
  route("api/generator/history", "routes/api/generator/history.ts"),
  route("api/*", "routes/api/not-found.ts"),

  // ---- stored result files (local storage; DESIGN §4)
  route("media/*", "routes/media.ts"),

  // ---- user center (form-driven pages)
  layout("routes/layout.tsx", [
    index("routes/home.tsx"),
    route("sign-up", "routes/sign-up.tsx"),
    route("sign-in", "routes/sign-in.tsx"),
    route("sign-out", "routes/sign-out.tsx"),
    route("account", "routes/account.tsx"),
    route("studio", "routes/studio.tsx"),
  ]),
] satisfies RouteConfig;
