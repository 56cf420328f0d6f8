/** An error the CLI prints as one line (no stack) before exiting with status 1. */
export class CliError extends Error {}
