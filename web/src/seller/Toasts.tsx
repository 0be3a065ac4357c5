// The results of a page's actions as toasts (Radix UI's, announced politely, dismissed by Escape or their close
// button, kept while hovered or focused). A failure is not a toast: it stays on the page, beside what failed.
import * as Toast from "@radix-ui/react-toast";
import { createContext, useCallback, useContext, useState, type ReactNode } from "react";

type Say = (text: string) => void;

const ToastContext = createContext<Say>(() => {});

/** Shows `text` in a toast for a few seconds. */
export const useToast = (): Say => useContext(ToastContext);

export function Toasts({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<Array<{ id: number; text: string }>>([]);
  const say = useCallback<Say>((text) => setShown((s) => [...s.slice(-2), { id: Date.now() + Math.random(), text }]), []);
  return (
    <ToastContext.Provider value={say}>
      <Toast.Provider swipeDirection="right" duration={6000} label="Notification">
        {children}
        {shown.map((t) => (
          <Toast.Root
            key={t.id}
            className="toast"
            onOpenChange={(open) => {
              if (!open) setShown((s) => s.filter((x) => x.id !== t.id));
            }}
          >
            <Toast.Description className="toast-text">{t.text}</Toast.Description>
            <Toast.Close className="toast-close" aria-label="Dismiss">
              ×
            </Toast.Close>
          </Toast.Root>
        ))}
        <Toast.Viewport className="toast-viewport" />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}
