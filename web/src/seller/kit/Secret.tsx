// A secret shown once (a new API key, a webhook endpoint's signing secret): in a box to select, a Copy button whose
// result is a toast, and the warning that it will not be shown again. Where the browser will not copy, the toast
// says so and the box stays to select by hand.
import { useToast } from "../Toasts.js";
import { copyText } from "./copy.js";
import "./panels.css";

export function Secret({ label, value, note }: { label: string; value: string; note: string }) {
  const toast = useToast();
  const copy = async () => toast((await copyText(value)) ? `Copied the ${label.toLowerCase()}.` : "Your browser would not copy it: select it and copy it by hand.");
  return (
    <div className="secret" role="group" aria-label={label}>
      <p className="secret-label">{label}</p>
      <code className="secret-value">{value}</code>
      <div className="secret-actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <span className="hint">{note}</span>
      </div>
    </div>
  );
}
