// Any path the app has no page for (the server only sends the app for its own page routes).
import { Page } from "../ui.js";

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address.</p>
      <p>
        <a href="/">Go to the home page</a>
      </p>
    </Page>
  );
}
