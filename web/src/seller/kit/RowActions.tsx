// A row's actions behind one button. The menu itself (RowMenu.tsx, Radix UI's dropdown menu) is its own chunk,
// loaded once the list has painted: the list does not wait for it, and until it arrives (milliseconds) the
// button is shown disabled, so a press is never lost to the swap.
import { onDemand } from "./on-demand.js";

export type RowAction = { label: string; href: string } | { label: string; onSelect: () => void; danger?: boolean };

const menu = onDemand(() => import("./RowMenu.js").then((m) => m.RowMenu));

export function RowActions({ name, items }: { name: string; items: RowAction[] }) {
  const RowMenu = menu.useLoaded(true);
  if (RowMenu) return <RowMenu name={name} items={items} />;
  return (
    <button type="button" className="row-actions" aria-label={`Actions for ${name}`} disabled>
      <span aria-hidden="true">⋯</span>
    </button>
  );
}
