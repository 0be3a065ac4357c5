// A destructive action asked once more in a dialog (Radix UI's: focus kept inside, Escape cancels, the focus
// back on the button after). The dialog names what happens; its confirm button names the action again.
import * as Dialog from "@radix-ui/react-dialog";
import { useState, type ReactNode } from "react";

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

export function Confirm({ trigger, triggerLabel, title, body, confirm, cancel = "Cancel", danger = true, onConfirm, open, onOpenChange }: ConfirmProps) {
  const [own, setOwn] = useState(false);
  const [busy, setBusy] = useState(false);
  const isOpen = open ?? own;
  const setOpen = onOpenChange ?? setOwn;
  async function go() {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setOpen(false);
    }
  }
  return (
    <Dialog.Root open={isOpen} onOpenChange={setOpen}>
      {trigger !== null && (
        <Dialog.Trigger asChild>
          <button type="button" className={danger ? "danger" : undefined} aria-label={triggerLabel}>
            {trigger}
          </button>
        </Dialog.Trigger>
      )}
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title className="dialog-title">{title}</Dialog.Title>
          <Dialog.Description className="dialog-body">{body}</Dialog.Description>
          <div className="dialog-actions">
            <Dialog.Close asChild>
              <button type="button">{cancel}</button>
            </Dialog.Close>
            <button type="button" className={danger ? "danger" : "primary"} disabled={busy} onClick={() => void go()}>
              {confirm}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
