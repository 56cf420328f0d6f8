/**
 * The icons of the gallery's tiles, drawn once per page as symbols and used by reference: a page of 24 results
 * carries about ten icons each (the menu's actions), and rendering each as its own lucide component on the server
 * costs more than the rest of the tile. The referencing `<svg>` keeps the size and colour rules of where it sits
 * (`[&_svg]:size-4`, `currentColor`), so the icons look as the lucide components did.
 */
import {
  Clapperboard,
  Copy,
  Download,
  ExternalLink,
  type LucideIcon,
  MoreHorizontal,
  PenLine,
  Repeat,
  RotateCcw,
  Shuffle,
  Trash2,
} from "lucide-react";
import { memo } from "react";

const ICONS = {
  more: MoreHorizontal,
  reuse: RotateCcw,
  again: Repeat,
  variation: Shuffle,
  edit: PenLine,
  animate: Clapperboard,
  download: Download,
  open: ExternalLink,
  copy: Copy,
  delete: Trash2,
} satisfies Record<string, LucideIcon>;

export type TileIconName = keyof typeof ICONS;

const symbolId = (name: TileIconName) => `tile-icon-${name}`;

/** The symbols, once on the page that shows tiles (out of the layout, hidden from assistive technology). */
export const TileIconSprite = memo(function TileIconSprite() {
  return (
    <svg aria-hidden="true" width="0" height="0" className="absolute size-0 overflow-hidden">
      {Object.entries(ICONS).map(([name, Icon]) => (
        <symbol key={name} id={symbolId(name as TileIconName)} viewBox="0 0 24 24">
          <Icon />
        </symbol>
      ))}
    </svg>
  );
});

/** One icon by reference to the sprite; decorative (the button or link around it has the name). */
export function TileIcon({ name, className }: { name: TileIconName; className?: string }) {
  return (
    <svg aria-hidden="true" width="24" height="24" viewBox="0 0 24 24" className={className}>
      <use href={`#${symbolId(name)}`} />
    </svg>
  );
}
