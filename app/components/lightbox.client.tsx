/** The lightbox (yet-another-react-lightbox): keyboard, swipe and focus handling come from the library. */
import Lightbox from "yet-another-react-lightbox";
import Captions from "yet-another-react-lightbox/plugins/captions";
import "yet-another-react-lightbox/plugins/captions.css";
import { MoreHorizontal } from "lucide-react";
import { type ReactNode, useState } from "react";
import Download from "yet-another-react-lightbox/plugins/download";
import Video from "yet-another-react-lightbox/plugins/video";
import { isVideoFile, type MediaItem } from "./media-item";

/** The current result's actions (the studio's Reuse, Run again, …) behind one toolbar button. */
function ActionsButton({ node }: { node: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="relative">
      <button
        type="button"
        className="yarl__button"
        aria-label="Actions"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
      >
        <MoreHorizontal aria-hidden="true" className="yarl__icon" />
      </button>
      {open ? <div className="absolute top-full right-0 z-10 mt-1 w-44">{node}</div> : null}
    </div>
  );
}

export default function ResultLightbox({
  items,
  index,
  onClose,
  actions,
}: {
  items: MediaItem[];
  index: number;
  onClose: () => void;
  actions?: (item: MediaItem) => ReactNode;
}) {
  const [current, setCurrent] = useState(index);
  const slides = items.map((m) =>
    isVideoFile(m.url)
      ? {
          type: "video" as const,
          sources: [{ src: m.url, type: `video/${m.url.endsWith(".webm") ? "webm" : "mp4"}` }],
          description: m.prompt,
          autoPlay: true,
          loop: true,
          muted: true,
          playsInline: true,
          controls: true,
        }
      : { src: m.url, alt: `${m.aiType === "video" ? "Video" : "Image"}: ${m.prompt}`, description: m.prompt },
  );
  return (
    <Lightbox
      open
      close={onClose}
      index={index}
      slides={slides}
      plugins={[Captions, Video, Download]}
      captions={{ descriptionTextAlign: "center", descriptionMaxLines: 3 }}
      carousel={{ finite: items.length <= 1 }}
      controller={{ closeOnBackdropClick: true }}
      on={{ view: ({ index: i }) => setCurrent(i) }}
      toolbar={
        actions && items[current]
          ? { buttons: [<ActionsButton key={items[current].id} node={actions(items[current])} />, "download", "close"] }
          : undefined
      }
      labels={{ Previous: "Previous result", Next: "Next result", Close: "Close", Download: "Download" }}
    />
  );
}
