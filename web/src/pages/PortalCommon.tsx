// What the portal's section files share: the list section's frame, a message for a section's status line, the
// page's error callback, the date and status words, and the two fields the portal has beyond ui.tsx's.
import { intl, t, type MessageId } from "../i18n/intl.js";
import { useId, type ReactNode, type Ref } from "react";
import type { PortalError } from "../portal-api.js";
import type { Tone } from "../ui.js";

export interface Message {
  tone: Tone;
  text: string;
}

/** Something failed: a 401 ends the page's session, anything else is said where it happened. */
export type OnError = (error: PortalError) => string;

/** A date in the page's locale (web/src/i18n). */
export const formatDate = (iso: string | null | undefined) => (iso ? intl().formatDate(new Date(iso), { dateStyle: "long" }) : "—");

/**
 * A status in the page's words (`<prefix>.<status>` of the catalog), or as the server wrote it when the catalog has
 * none.
 */
export function statusText(prefix: "orders.status" | "subs.status" | "key.status", status: string): string {
  const id = `${prefix}.${status}`;
  return id in intl().messages ? t(id as MessageId) : status;
}

// ---- fields this page has beyond ui.tsx's -------------------------------------------------------------

export function SelectField({
  label,
  name,
  value,
  required,
  autoComplete,
  error,
  onChange,
  selectRef,
  children,
}: {
  label: string;
  name: string;
  value?: string;
  required?: boolean;
  autoComplete?: string;
  error?: string;
  onChange?: (value: string) => void;
  selectRef?: Ref<HTMLSelectElement>;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        ref={selectRef}
        name={name}
        value={value}
        required={required}
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={onChange ? (e) => onChange(e.target.value) : undefined}
      >
        {children}
      </select>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function TextArea({ label, name, maxLength }: { label: string; name: string; maxLength?: number }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>
        {label} <span className="optional">{t("ui.optional")}</span>
      </label>
      <textarea id={id} name={name} maxLength={maxLength} rows={3} />
    </div>
  );
}

/**
 * A section of the portal listing the customer's things: its heading, then one item per thing (each renders its
 * own `<li>`), or a line saying there are none; `children` follow the list (a status line).
 */
export function ListSection<T>({
  id,
  title,
  empty,
  items,
  item,
  children,
}: {
  id: string;
  title: string;
  empty: string;
  items: readonly T[];
  item: (thing: T) => ReactNode;
  children?: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {items.length === 0 ? <p className="empty">{empty}</p> : <ul className="items">{items.map(item)}</ul>}
      {children}
    </section>
  );
}
