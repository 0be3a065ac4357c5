// The few building blocks every page shares: the page frame, labelled fields, a number's − and + stepper, and the
// status line that screen readers announce (role=status for progress and results, role=alert for errors).
import { t } from "./i18n/intl.js";
import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";

/** A page: the site header and the main heading. `brand` (a customer's page: the seller) replaces till's name. */
export function Page({ title, className, brand, children }: { title: string; className?: string; brand?: string | null; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${brand ?? "till"}`;
  }, [title, brand]);
  return (
    <>
      <header className="site">
        {brand ? (
          <span className="brand" data-testid="brand">
            {brand}
          </span>
        ) : (
          <a href="/" className="brand">
            till
          </a>
        )}
      </header>
      <main className={className}>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {children}
      </main>
    </>
  );
}

/** Moves focus to the page's heading when `key` changes, so a new state is read out from its top. */
export function useFocusHeading(key: unknown): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.querySelector<HTMLElement>("main h1")?.focus();
  }, [key]);
}

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & {
  label: string;
  hint?: string | null;
  error?: string | undefined;
  /** A stable id (an error summary links to it); a generated one otherwise. */
  id?: string;
  /** Shows "(optional)" after the label. */
  optional?: boolean;
};

/** The ids a field's label, hint and error tie together with. */
function useFieldIds(given: string | undefined, hint: unknown, error: unknown) {
  const generated = useId();
  const id = given ?? generated;
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return { id, describedBy };
}

function Label({ htmlFor, label, optional }: { htmlFor: string; label: string; optional?: boolean | undefined }) {
  return (
    <label htmlFor={htmlFor}>
      {label}
      {optional && <span className="optional"> {t("ui.optional")}</span>}
    </label>
  );
}

/** The hint and the error under a field, with the ids its aria-describedby names. */
function FieldNotes({ id, hint, error }: { id: string; hint?: string | null | undefined; error?: string | undefined }) {
  return (
    <>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
}

/** A labelled input; `error` is the field's own message (a 422's), tied to it with aria-describedby. */
export function Field({ label, hint, error, id: given, optional, ...input }: FieldProps) {
  const { id, describedBy } = useFieldIds(given, hint, error);
  return (
    <div className="field">
      <Label htmlFor={id} label={label} optional={optional} />
      <input id={id} aria-describedby={describedBy} aria-invalid={error ? true : undefined} {...input} />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

type TextAreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id"> & {
  label: string;
  hint?: string | null;
  error?: string | undefined;
  id?: string;
  optional?: boolean;
};

export function TextAreaField({ label, hint, error, id: given, optional, ...input }: TextAreaProps) {
  const { id, describedBy } = useFieldIds(given, hint, error);
  return (
    <div className="field">
      <Label htmlFor={id} label={label} optional={optional} />
      <textarea id={id} aria-describedby={describedBy} aria-invalid={error ? true : undefined} {...input} />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> & {
  label: string;
  hint?: string | null;
  error?: string | undefined;
  id?: string;
  optional?: boolean;
  options: ReadonlyArray<{ value: string; label: string }>;
  /** The empty first option's text. */
  placeholder?: string;
};

export function SelectField({ label, hint, error, id: given, optional, options, placeholder, ...select }: SelectProps) {
  const { id, describedBy } = useFieldIds(given, hint, error);
  return (
    <div className="field">
      <Label htmlFor={id} label={label} optional={optional} />
      <select id={id} aria-describedby={describedBy} aria-invalid={error ? true : undefined} {...select}>
        <option value="">{placeholder ?? t("ui.choose")}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

export function CheckboxField({ label, hint, error, id: given, ...input }: Omit<FieldProps, "type" | "optional">) {
  const { id, describedBy } = useFieldIds(given, hint, error);
  return (
    <div className="field checkbox">
      <input id={id} type="checkbox" aria-describedby={describedBy} aria-invalid={error ? true : undefined} {...input} />
      <label htmlFor={id}>{label}</label>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

interface StepperProps {
  value: number;
  /** The least it may be (1 unless said); `max`, the most (none unless said). */
  min?: number;
  max?: number | null;
  onChange: (value: number) => void;
  /** The − and + buttons' accessible names ("One Storage fewer"). */
  less: string;
  more: string;
  /** The input's id, for a <label htmlFor> that names it (or an error summary's link). */
  id?: string;
  /** The input's accessible name where no label names it. */
  label?: string;
  describedBy?: string;
  invalid?: boolean;
}

/**
 * A whole number with − and + beside it (a quantity, a number of seats): the buttons and the typed number stay within
 * min and max, and the arrow keys step it as a number input's do.
 */
export function Stepper({ value, min = 1, max = null, onChange, less, more, id, label, describedBy, invalid }: StepperProps) {
  const set = (n: number) => onChange(Math.max(min, max === null ? n : Math.min(max, n)));
  return (
    <div className="stepper">
      <button type="button" aria-label={less} disabled={value <= min} onClick={() => set(value - 1)}>
        −
      </button>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max ?? undefined}
        aria-label={label}
        aria-describedby={describedBy}
        aria-invalid={invalid ? true : undefined}
        value={value}
        onChange={(e) => {
          const n = Number(e.target.value);
          if (Number.isInteger(n) && n > 0) set(n);
        }}
      />
      <button type="button" aria-label={more} disabled={max !== null && value >= max} onClick={() => set(value + 1)}>
        +
      </button>
    </div>
  );
}

export type Tone = "info" | "success" | "error" | "denied";

/** The polite region is always rendered, so assistive technology knows it before anything is announced in
 *  it; an error is an alert, which is announced when it appears. */
export function Status({ tone = "info", children }: { tone?: Tone; children?: ReactNode }) {
  const isError = tone === "error" && Boolean(children);
  return (
    <>
      <div className={`status ${isError ? "" : tone}`} role="status" aria-live="polite">
        {isError ? null : children}
      </div>
      {isError && (
        <div className="status error" role="alert">
          {children}
        </div>
      )}
    </>
  );
}
