/**
 * Enhance prompt (docs/studio.md "Enhance prompt"): a text model rewrites the short prompt in the composer into a
 * detailed one, put back in the prompt box for the person to edit before Generate. Needs JavaScript (it changes
 * the box in place); its price is said on the button's title (free while the text model is simulated).
 */
import { Sparkles } from "lucide-react";
import { type RefObject, useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui";
import type { ActionData, Data } from "./types";

export function EnhanceButton({
  promptRef,
  offer,
  onEnhanced,
}: {
  promptRef: RefObject<HTMLTextAreaElement | null>;
  offer: Data["enhance"];
  onEnhanced: () => void;
}) {
  const fetcher = useFetcher<ActionData>({ key: "studio-enhance" });
  const busy = fetcher.state !== "idle";
  const answer = fetcher.data?.intent === "enhance" ? fetcher.data : undefined;
  const applied = useRef<unknown>(null);
  useEffect(() => {
    if (!answer?.prompt || applied.current === answer || !promptRef.current) return;
    applied.current = answer;
    promptRef.current.value = answer.prompt;
    promptRef.current.focus({ preventScroll: true });
    onEnhanced();
  }, [answer, promptRef, onEnhanced]);
  const { t } = useTranslation("studio");
  const price = offer.mode === "simulated" ? t("enhance.free") : t("credits", { count: offer.credits });
  return (
    <>
      <Button
        type="button"
        variant="ghost"
        size="sm"
        disabled={busy}
        aria-busy={busy || undefined}
        title={t("enhance.title", { price })}
        aria-describedby={answer?.error ? "f-enhance-error" : undefined}
        onClick={() =>
          fetcher.submit(
            { intent: "enhance", prompt: promptRef.current?.value ?? "" },
            { method: "post", action: "/studio" },
          )
        }
        data-testid="enhance"
      >
        <Sparkles aria-hidden="true" />
        {busy ? t("enhance.busy") : t("enhance.label")}
        {offer.mode === "live" ? (
          <span className="font-normal text-muted-foreground">· {t("credits", { count: offer.credits })}</span>
        ) : null}
      </Button>
      {answer?.error ? (
        <p id="f-enhance-error" role="alert" className="w-full text-sm text-danger">
          {answer.error}
        </p>
      ) : null}
    </>
  );
}
