// The CLI's Ink components, rendered with ink-testing-library: what a person sees on a terminal.
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { Fields, Table, renderEntries, renderFields, renderTable } from "../../cli/ui/index.js";
import { DeviceCodeBox, Spinner } from "../../cli/ui/live.js";

// ink-testing-library renders without colour support; strip any styling the components ask for anyway
const ANSI_STYLE = new RegExp(String.raw`\u001B\[[0-9;]*m`, "g");
const plain = (s: string | undefined) => (s ?? "").replace(ANSI_STYLE, "");

describe("Table", () => {
  it("aligns columns to the widest cell, two spaces apart, headers first", () => {
    const { lastFrame } = render(
      <Table
        headers={["NAME", "SLUG", "ID"]}
        rows={[
          ["Acme Inc", "acme", "1"],
          ["B", "a-much-longer-slug", "2"],
        ]}
        columns={100}
      />,
    );
    expect(plain(lastFrame())).toBe(
      ["NAME      SLUG                ID", "Acme Inc  acme                1", "B         a-much-longer-slug  2"].join("\n"),
    );
  });

  it("truncates the last column to the terminal width instead of wrapping", () => {
    const out = renderTable(["ID", "NOTE"], [["1", "x".repeat(200)]], 40);
    const lines = out.split("\n");
    expect(lines).toHaveLength(2);
    expect(plain(lines[1]).length).toBeLessThanOrEqual(40);
    expect(plain(lines[1])).toMatch(/^1 {3}x+…$/);
  });

  it("renders headers only for no rows", () => {
    expect(plain(renderTable(["A", "B"], [], 80))).toBe("A  B");
  });
});

describe("Entries", () => {
  it("puts each title on its line and wraps its text under it, indented, within the terminal's width", () => {
    const text = "The customer has no email: till identifies customers by email. Add one at Stripe and run the import again.";
    const lines = plain(renderEntries([{ title: "customer  cus_123  Nameless", text }, { title: "meter  mtr_1", text: "short" }], 40)).split("\n");
    expect(lines[0]).toBe("customer  cus_123  Nameless");
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    const wrapped = lines.slice(1, lines.indexOf("meter  mtr_1"));
    expect(wrapped.length).toBeGreaterThan(2);
    expect(wrapped.every((l) => l.startsWith("  "))).toBe(true);
    expect(wrapped.map((l) => l.trim()).join(" ")).toBe(text);
    expect(lines.slice(-2)).toEqual(["meter  mtr_1", "  short"]);
  });
});

describe("Fields", () => {
  it("aligns the values after the longest label", () => {
    const { lastFrame } = render(
      <Fields
        fields={[
          { label: "Server", value: "http://localhost:3000" },
          { label: "Signed in as", value: "a@example.com" },
        ]}
      />,
    );
    expect(plain(lastFrame())).toBe("Server        http://localhost:3000\nSigned in as  a@example.com");
    expect(plain(renderFields([{ label: "Key", value: "till_x" }], 80))).toBe("Key  till_x");
  });
});

describe("Spinner", () => {
  it("shows a frame of the dots spinner and the label", () => {
    const { lastFrame, unmount } = render(<Spinner label="Loading organizations" />);
    expect(plain(lastFrame())).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Loading organizations$/);
    unmount();
  });
});

describe("DeviceCodeBox", () => {
  const props = {
    userCode: "ABCD-EFGH",
    verificationUri: "http://localhost:3000/device",
    verificationUriComplete: "http://localhost:3000/device?user_code=ABCDEFGH",
    browserOpened: false,
    waiting: true,
  };

  it("boxes the code and both URLs, and waits with a spinner", () => {
    const { lastFrame, unmount } = render(<DeviceCodeBox {...props} />);
    const frame = plain(lastFrame());
    expect(frame).toContain("Your one-time code: ABCD-EFGH");
    expect(frame).toContain("Open in a browser: http://localhost:3000/device?user_code=ABCDEFGH");
    expect(frame).toContain("or go to http://localhost:3000/device and enter the code");
    expect(frame).toContain("Waiting for you to approve in the browser…");
    expect(frame.split("\n")[0]).toMatch(/^╭─+╮$/);
    unmount();
  });

  it("says when the browser was opened, and drops the spinner once done", () => {
    const { lastFrame, rerender } = render(<DeviceCodeBox {...props} browserOpened />);
    expect(plain(lastFrame())).toContain("Opened in your browser: http://localhost:3000/device?user_code=ABCDEFGH");
    rerender(<DeviceCodeBox {...props} browserOpened waiting={false} />);
    expect(plain(lastFrame())).not.toContain("Waiting");
  });
});
