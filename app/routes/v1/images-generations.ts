import { handleImagesGenerations } from "~/http/openai/images.server";

// OpenAI-compatible image generation (docs/openai-compat.md).
export const action = ({ request }: { request: Request }) => handleImagesGenerations(request);
export const loader = ({ request }: { request: Request }) => handleImagesGenerations(request);
