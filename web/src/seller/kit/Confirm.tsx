// A destructive action asked once more in a dialog. The dialog names what happens; its confirm button names the
// action again. The dialog (ConfirmDialog.tsx, Radix UI's) is its own chunk: asked for when the pointer or the
// focus reaches the button, shown when it arrives, so a page's first paint does not carry it.
import { useRef, useState, type ReactNode } from "react";
import { onDemand } from "./on-demand.js";

export interface ConfirmProps {
  /** The button that opens the dialog (its text). */
  trigger: ReactNode;
  /** The trigger's accessible name when its text is not enough (a row's action). */
  triggerLabel?: string;
  title: string;
  /** What happens, in a sentence or two. */
  body: ReactNode;
  confirm: string;
  cancel?: string;
  danger?: boolean;
  onConfirm: () => Promise<void> | void;
  /** Opens the dialog without a trigger of its own (a row action's menu item opens it). */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}

const dialog = onDemand(() => import("./ConfirmDialog.js").then((m) => m.ConfirmDialog));

export function Confirm({ trigger, triggerLabel, title, body, confirm, cancel = "Cancel", danger = true, onConfirm, open, onOpenChange }: ConfirmProps) {
  const [own, setOwn] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const isOpen = open ?? own;
  const setOpen = onOpenChange ?? setOwn;
  const Dialog = dialog.useLoaded(isOpen);
  return (
    <>
      {trigger !== null && (
        <button
          ref={opener}
          type="button"
          className={danger ? "danger" : undefined}
          aria-label={triggerLabel}
          aria-haspopup="dialog"
          aria-expanded={isOpen}
          onPointerEnter={() => void dialog.preload()}
          onFocus={() => void dialog.preload()}
          onClick={() => setOpen(true)}
        >
          {trigger}
        </button>
      )}
      {Dialog && <Dialog open={isOpen} onOpenChange={setOpen} title={title} body={body} confirm={confirm} cancel={cancel} danger={danger} onConfirm={onConfirm} opener={opener} />}
    </>
  );
}
