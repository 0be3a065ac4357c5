// Deleting one thing from its page: a button that asks once more (a second button, no browser dialog), then
// DELETEs it and goes back to its list; the API's refusal is shown where the button was.
import { useState } from "react";
import { Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { href } from "../url.js";

export function DeleteButton({ path, what, hint, back }: { path: string; what: string; hint: string; back: string }) {
  const { scope } = useSeller();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  async function remove() {
    const r = await v1<unknown>(scope, "DELETE", path);
    if (!r.ok) return setError(r.error.message);
    window.location.assign(href(back, { deleted: 1 }));
  }
  return (
    <section aria-labelledby="delete-h">
      <h2 id="delete-h">Delete</h2>
      <p className="hint">{hint}</p>
      {asking ? (
        <div className="actions">
          <button type="button" className="danger" onClick={() => void remove()}>
            Yes, delete {what}
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" className="danger" onClick={() => setAsking(true)}>
          Delete {what}
        </button>
      )}
      <Status tone={error ? "error" : "info"}>{error}</Status>
    </section>
  );
}
