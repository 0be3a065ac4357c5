// Details of one row in a dialog (Radix UI's: focus kept inside, Escape or Close closes it, the focus goes back
// to what opened it): a webhook delivery's request and response, say.
import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";
import "./panels.css";

export function Viewer({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog viewer" aria-describedby={undefined}>
          <Dialog.Title className="dialog-title">{title}</Dialog.Title>
          <div className="viewer-body">{children}</div>
          <div className="dialog-actions">
            <Dialog.Close asChild>
              <button type="button">Close</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
