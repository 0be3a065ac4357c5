// The dialog of a Confirm (Radix UI's: focus kept inside, Escape cancels, the focus back on the button after),
// its own chunk, loaded by Confirm when the dialog is first about to open.
import * as Dialog from "@radix-ui/react-dialog";
import { useState, type ReactNode, type RefObject } from "react";

export interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  body: ReactNode;
  confirm: string;
  cancel: string;
  danger: boolean;
  onConfirm: () => Promise<void> | void;
  /** The button that opened it, given the focus back on close (null: a row's menu opened it). */
  opener: RefObject<HTMLButtonElement | null>;
}

export function ConfirmDialog({ open, onOpenChange, title, body, confirm, cancel, danger, onConfirm, opener }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  async function go() {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      onOpenChange(false);
    }
  }
  function focusOpener(event: Event) {
    // the opener is not Radix's own Trigger (it is rendered before this chunk loads): give it the focus back here
    if (!opener.current) return;
    event.preventDefault();
    opener.current.focus();
  }
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog" onCloseAutoFocus={focusOpener}>
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
