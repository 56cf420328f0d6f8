// Preloaded by `bun test` (bunfig.toml). Unit tests log nothing unless asked.
process.env.LOG_LEVEL ??= "silent";

