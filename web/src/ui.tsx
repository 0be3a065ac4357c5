// The few building blocks every page shares: the page frame, labelled fields, and the status line that
// screen readers announce (role=status for progress and results, role=alert for errors).
import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode } from "react";

export function Page({ title, className, children }: { title: string; className?: string; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · till`;
  }, [title]);
  return (
    <>
      <header className="site">
        <a href="/" className="brand">
          till
        </a>
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

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & { label: string; hint?: string; error?: string };

/** A labelled input; `error` is the field's own message (a 422's), tied to it with aria-describedby. */
export function Field({ label, hint, error, ...input }: FieldProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={describedBy} aria-invalid={error ? true : undefined} {...input} />
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
