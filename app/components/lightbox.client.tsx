/** The lightbox (yet-another-react-lightbox): keyboard, swipe and focus handling come from the library. */
import Lightbox from "yet-another-react-lightbox";
import Captions from "yet-another-react-lightbox/plugins/captions";
import "yet-another-react-lightbox/plugins/captions.css";
import Download from "yet-another-react-lightbox/plugins/download";
import Video from "yet-another-react-lightbox/plugins/video";
import { isVideoFile, type MediaItem } from "./media";

export default function ResultLightbox({
  items,
  index,
  onClose,
}: {
  items: MediaItem[];
  index: number;
  onClose: () => void;
}) {
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
      labels={{ Previous: "Previous result", Next: "Next result", Close: "Close", Download: "Download" }}
    />
  );
}
