/**
 * Imported first by app/cli.ts. Atelier's mode defaults to production (config.server.ts), but dependencies
 * such as React read `process.env.NODE_ENV` themselves when they load: unset, they would load their
 * development builds (slower rendering, and parsing them costs start-up time). Same default, set before them.
 */
process.env.NODE_ENV ??= "production";
