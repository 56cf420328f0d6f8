import { handleMcp } from "~/http/mcp/handler.server";

// The MCP server (docs/mcp.md): Streamable HTTP, authenticated by API keys.
export const action = ({ request }: { request: Request }) => handleMcp(request);
export const loader = ({ request }: { request: Request }) => handleMcp(request);
