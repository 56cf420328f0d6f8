#!/usr/bin/env bun
/**
 * The Atelier executable: `atelier [serve|migrate|admin|backup|version] …`.
 * Everything runs from the React Router server build so that one copy of each
 * module serves HTTP, runs jobs and answers the CLI.
 */
import type { ServerBuild } from "react-router";
import { join } from "node:path";
// @ts-ignore -- produced by `bun run build`
import * as serverBuild from "../build/server/index.js";

const build = serverBuild as unknown as ServerBuild;
const entry = build.entry.module as unknown as {
  runCli: (argv: string[], build: ServerBuild, opts: { clientDir: string }) => Promise<number>;
};
const code = await entry.runCli(process.argv.slice(2), build, { clientDir: join(import.meta.dir, "../build/client") });
if (code !== -1) process.exit(code);
