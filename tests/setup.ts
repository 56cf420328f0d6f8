// Preloaded by `bun test` (bunfig.toml). Unit tests log nothing unless asked.
process.env.LOG_LEVEL ??= "silent";

// Hooks start real server processes; on a loaded 2-core machine that can take longer than bun's 5 s hook default.
import { setDefaultTimeout } from "bun:test";
setDefaultTimeout(60_000);
