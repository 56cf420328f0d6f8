import { Card, PageHeader } from "~/components/ui";
import type { Route } from "./+types/content-policy";

export const meta: Route.MetaFunction = () => [{ title: "Content policy — Atelier" }];

/**
 * The site's content policy (docs/safety.md): what may not be made here, and what happens to a request that asks for
 * it. A refused prompt or result links here (`content policy: … (see /content-policy)`).
 */
export default function ContentPolicy() {
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <PageHeader
        title="Content policy"
        description="What this service will not make, and what happens when a request asks for it."
      />
      <Card title="Never allowed" id="never">
        <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
          <li>
            Sexual content involving minors, in any form, real or fictional. Such requests are refused and kept as
            evidence; apparent child sexual abuse material is reported to the authorities.
          </li>
          <li>
            Sexual or intimate images of a real person made or edited without their consent, including “undressing” a
            photo.
          </li>
        </ul>
      </Card>
      <Card title="Refused by default" id="refused">
        <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
          <li>Sexual content and nudity.</li>
          <li>Graphic violence and gore.</li>
          <li>Hate: content attacking people for who they are.</li>
          <li>Harassment and threats against a person.</li>
          <li>Content encouraging self-harm.</li>
          <li>Content promoting illegal acts.</li>
        </ul>
      </Card>
      <Card title="How requests are checked" id="checks">
        <div className="mt-2 space-y-2 text-sm">
          <p>
            Every prompt is checked before anything is created or charged: against this site's list of blocked terms
            and, where the operator has configured it, an automated moderation service. Uploaded pictures and every
            result are checked before anyone can see them, including by the image provider's own safety checker.
          </p>
          <p>
            A refused prompt is answered with a message starting <code>content policy:</code> that names the rule it
            met; nothing is created and no credits are taken. A refused result fails its task: its file is never stored
            or shown, and the task costs nothing.
          </p>
          <p>
            Automated checks make mistakes both ways. If you believe a request was refused wrongly, contact the operator
            of this site with the time of the request; if you see a result that breaks this policy, report it.
          </p>
          <p>Repeated attempts to get around these checks may lead to the account being suspended.</p>
        </div>
      </Card>
    </div>
  );
}
