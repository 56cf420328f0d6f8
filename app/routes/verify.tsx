import { Form, useNavigation } from "react-router";
import { Button, Card, PageHeader } from "~/components/ui";
import { clientIpOf } from "~/domain/demo/access.server";
import { VERIFY_LIMIT, verifyFile } from "~/domain/provenance/verify.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { getServices } from "~/http/services.server";
import { isAppError } from "~/lib/errors";
import { currentClientIp } from "~/lib/log.server";
import { readUploadedFile } from "~/lib/upload.server";
import type { Route } from "./+types/verify";

export const meta: Route.MetaFunction = () => [{ title: "Check a file's Content Credentials — Atelier" }];

/**
 * /verify (docs/provenance.md): anyone uploads a picture or a video and reads what its C2PA Content Credentials say —
 * made by AI, by which model, signed by whom, and whether any byte changed since. Works without JavaScript; the
 * file is read and forgotten, never stored.
 */
export async function action({ request }: Route.ActionArgs) {
  const { db, clock, config } = getServices();
  try {
    const ip = clientIpOf(config, request, currentClientIp());
    await takeOrRefuse(db, `provenance-verify:${ip}`, { limit: VERIFY_LIMIT, windowMs: 60_000 }, clock.now());
    return { ok: true as const, result: await verifyFile(await readUploadedFile(request, config.FILE_MAX_BYTES)) };
  } catch (error) {
    if (isAppError(error)) return { ok: false as const, error: error.message };
    throw error;
  }
}

const AI = "trainedAlgorithmicMedia";

export default function Verify({ actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const r = actionData?.ok ? actionData.result : null;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <PageHeader
        title="Check a file's Content Credentials"
        description="Every result made here carries signed C2PA Content Credentials saying it was made by AI. Upload a file to read them."
      />
      <Card title="File" id="file">
        <Form method="post" encType="multipart/form-data" className="mt-2 flex flex-wrap items-center gap-3">
          <input
            type="file"
            name="file"
            required
            accept="image/png,image/jpeg,image/webp,video/mp4"
            aria-label="File to check"
            className="text-sm"
          />
          <Button type="submit" disabled={busy}>
            {busy ? "Checking…" : "Check"}
          </Button>
        </Form>
        {actionData && !actionData.ok ? (
          <p role="alert" className="mt-3 text-sm text-destructive">
            {actionData.error}
          </p>
        ) : null}
      </Card>
      {r ? (
        <Card title="What the file says" id="result">
          <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm" data-testid="credentials">
            <dt className="text-muted-foreground">Content Credentials</dt>
            <dd>{r.has_manifest ? (r.valid ? "present and valid" : "present, but the file was changed") : "none"}</dd>
            {r.has_manifest ? (
              <>
                <dt className="text-muted-foreground">Made by AI</dt>
                <dd>{r.digital_source_type?.endsWith(AI) ? "yes (trained algorithmic media)" : "not stated"}</dd>
                <dt className="text-muted-foreground">Model</dt>
                <dd>{r.model ?? "—"}</dd>
                <dt className="text-muted-foreground">Made with</dt>
                <dd>{r.generator ?? "—"}</dd>
                <dt className="text-muted-foreground">Signed by</dt>
                <dd>
                  {r.signer ?? "—"} {r.trusted ? "" : "(not on a trust list)"}
                </dd>
                <dt className="text-muted-foreground">When</dt>
                <dd>{r.signed_at ?? "—"}</dd>
                {r.failures.length ? (
                  <>
                    <dt className="text-muted-foreground">Problems</dt>
                    <dd>{r.failures.join(", ")}</dd>
                  </>
                ) : null}
              </>
            ) : null}
          </dl>
        </Card>
      ) : null}
    </div>
  );
}
