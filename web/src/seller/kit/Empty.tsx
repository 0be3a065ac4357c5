// An empty list that teaches the next step: what the list will hold, the page's action, and the `till` command
// that does the same from a terminal.
import type { ReactNode } from "react";

export function Empty({ title, children, action, command }: { title: string; children?: ReactNode; action?: ReactNode; command?: string }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <p className="empty-text">{children}</p>}
      {action && <div className="empty-action">{action}</div>}
      {command && (
        <p className="empty-cli">
          From a terminal: <code>{command}</code>
        </p>
      )}
    </div>
  );
}
