// A row's actions menu (Radix UI's dropdown menu: arrow keys move, Enter picks, Escape closes and gives the focus
// back). An item is a link (opens a page) or a command (a destructive one opens its Confirm). Loaded by RowActions.
import * as Menu from "@radix-ui/react-dropdown-menu";
import type { RowAction } from "./RowActions.js";

export function RowMenu({ name, items }: { name: string; items: RowAction[] }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild>
        <button type="button" className="row-actions" aria-label={`Actions for ${name}`}>
          <span aria-hidden="true">⋯</span>
        </button>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content className="menu" align="end" sideOffset={4}>
          {items.map((item) =>
            "href" in item ? (
              <Menu.Item key={item.label} asChild className="menu-item">
                <a href={item.href}>{item.label}</a>
              </Menu.Item>
            ) : (
              <Menu.Item key={item.label} className={`menu-item${item.danger ? " danger" : ""}`} onSelect={item.onSelect}>
                {item.label}
              </Menu.Item>
            ),
          )}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
