import { handleImagesEdits } from "~/http/openai/edits.server";

// OpenAI-compatible image edits (docs/openai-compat.md "Edits").
export const action = ({ request }: { request: Request }) => handleImagesEdits(request);
export const loader = ({ request }: { request: Request }) => handleImagesEdits(request);
