/**
 * The composer's pictures: one compact chip per slot (`image`, and `image_end` where the model takes a last
 * frame). Empty, a chip is a plain file field (`input_<slot>`), so a picture goes with the form without
 * JavaScript (the form is multipart; the action stores it as the user's file). With JavaScript a picture is
 * stored as soon as it is picked, dropped or pasted (`intent=upload`), and the chip keeps only its file id
 * (`opt_<slot>`) and a thumbnail: the draft never holds bytes.
 */
import { ImagePlus, LoaderCircle, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { cn, coverInput } from "~/components/ui";
import { INPUT_ACCEPT, type InputValue, type PickerSlot, slotLabel } from "./inputs";

/** The action's answer to an upload from the composer. */
export type UploadAnswer =
  | { intent: "upload"; slot: PickerSlot; file: { file_id: string; url: string } }
  | { intent: "upload"; slot: PickerSlot; error: string };

/** Stores a picture for one slot and reports the stored file (or why not) to `onStored`. */
export function useInputUpload(slot: PickerSlot, onStored: (v: InputValue | null, error?: string) => void) {
  const fetcher = useFetcher<UploadAnswer>({ key: `studio-upload-${slot}` });
  const [local, setLocal] = useState<string | null>(null);
  const stored = useRef(onStored);
  stored.current = onStored;
  useEffect(() => {
    const a = fetcher.data;
    if (!a || fetcher.state !== "idle") return;
    if ("file" in a) stored.current({ ref: a.file.file_id, preview: a.file.url });
    else stored.current(null, a.error);
    setLocal(null);
  }, [fetcher.data, fetcher.state]);
  // The picture on screen while it uploads is this browser's own copy.
  useEffect(() => () => void (local && URL.revokeObjectURL(local)), [local]);
  return {
    pending: fetcher.state !== "idle",
    local,
    upload(file: File) {
      const body = new FormData();
      body.set("intent", "upload");
      body.set("via", "fetch");
      body.set("slot", slot);
      body.set("file", file);
      setLocal(URL.createObjectURL(file));
      void fetcher.submit(body, { method: "post", action: "/studio", encType: "multipart/form-data" });
    },
  };
}

/** The first picture in a drop or a paste. */
export function pictureIn(data: DataTransfer | null): File | null {
  for (const f of Array.from(data?.files ?? [])) if (f.type.startsWith("image/")) return f;
  return null;
}

export function InputChip({
  slot,
  aiType,
  value,
  pending,
  local,
  invalid,
  onPick,
  onRemove,
}: {
  slot: PickerSlot;
  aiType: string;
  value: InputValue | undefined;
  pending: boolean;
  local: string | null;
  invalid?: boolean;
  onPick: (file: File) => void;
  onRemove: () => void;
}) {
  const label = slotLabel(slot, aiType);
  const shown = local ?? value?.preview;
  const chip =
    "relative flex size-10 shrink-0 items-center justify-center overflow-hidden rounded-xl border transition sm:size-11";
  if (value || pending) {
    return (
      <div className={cn(chip, "border-border bg-muted")} data-input={slot}>
        {value ? <input type="hidden" name={`opt_${slot}`} value={value.ref} /> : null}
        {shown ? (
          <img src={shown} alt={`${label} (attached)`} className="size-full object-cover" width={44} height={44} />
        ) : (
          <ImagePlus aria-hidden="true" className="size-4 text-muted-foreground" />
        )}
        {pending ? (
          <span className="absolute inset-0 flex items-center justify-center bg-black/45" role="status">
            <LoaderCircle aria-hidden="true" className="size-4 animate-spin text-white" />
            <span className="sr-only">Uploading {label.toLowerCase()}…</span>
          </span>
        ) : (
          <button
            type="button"
            onClick={onRemove}
            className="absolute top-0.5 right-0.5 z-10 flex size-4.5 cursor-pointer items-center justify-center rounded-full bg-black/65 text-white hover:bg-black/85 focus-visible:outline-2 focus-visible:outline-ring"
            aria-label={`Remove ${label.toLowerCase()}`}
            title="Remove"
          >
            <X aria-hidden="true" className="size-3" />
          </button>
        )}
      </div>
    );
  }
  return (
    <label
      className={cn(
        chip,
        "cursor-pointer border-dashed border-input bg-surface text-muted-foreground hover:border-primary hover:text-foreground has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring",
        invalid && "border-danger text-danger-soft-foreground",
      )}
      title={`Add ${label.toLowerCase()}: pick, drop or paste a PNG, JPEG or WebP`}
      data-input={slot}
    >
      <input
        type="file"
        name={`input_${slot}`}
        accept={INPUT_ACCEPT}
        className={coverInput}
        aria-label={`Add ${label.toLowerCase()}`}
        aria-invalid={invalid || undefined}
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          if (!f) return;
          onPick(f);
          // Stored on its own: the form does not carry the bytes a second time.
          e.currentTarget.value = "";
        }}
      />
      <ImagePlus aria-hidden="true" className="size-4.5" />
    </label>
  );
}
