#!/usr/bin/env bun
/**
 * The Atelier executable: `atelier [serve|migrate|admin|backup|version] …`.
 * Everything runs from the React Router server build so that one copy of each
 * module serves HTTP, runs jobs and answers the CLI.
 */
import "./node-env";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ServerBuild } from "react-router";
// @ts-expect-error -- produced by `bun run build`
import * as serverBuild from "../build/server/index.js";

const build = serverBuild as unknown as ServerBuild;
const entry = build.entry.module as unknown as {
  runCli: (argv: string[], build: ServerBuild, opts: { clientDir: string }) => Promise<number>;
};
// From a checkout the client build sits beside app/; inside the compiled
// executable it is embedded (`--asset build`) under the bundle's own folder.
const clientDir =
  [join(import.meta.dir, "../build/client"), join(import.meta.dir, "build/client")].find((d) => existsSync(d)) ??
  join(import.meta.dir, "../build/client");
// No top-level await: `bun run build` bundles this file as CommonJS with bytecode (a faster start), which has none.
void entry.runCli(process.argv.slice(2), build, { clientDir }).then((code) => {
  if (code !== -1) process.exit(code);
});
