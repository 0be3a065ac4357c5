// /api-keys: the organization's API keys of the side shown (till_live_… or till_test_…), a page at a time (the
// server's /api-key/page cuts the side's keys in the database), making one (its secret shown once) and revoking
// one. Keys belong to the live organization (better-auth's /api/auth/api-key routes, with the session cookie), as
// `till keys` does; the owner's and admins' roles may manage them.
import { useState, type FormEvent } from "react";
import { auth } from "../../api.js";
import { Field, Status, type Tone } from "../../ui.js";
import type { ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager, Table } from "../parts.js";
import { pageParam } from "../url.js";

interface ApiKey {
  id: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  enabled: boolean;
  expiresAt: string | null;
  createdAt: string;
  key?: string;
}

const SANDBOX_PREFIX = "till_test_";

export function ApiKeys() {
  const { organization, mode, who } = useSeller();
  const sandbox = mode === "sandbox";
  const mayManage = Boolean(
    who && (who.roles.includes("owner") || who.roles.includes("admin")),
  );
  const page = pageParam();
  const query = new URLSearchParams({
    organizationId: organization.id,
    side: sandbox ? "sandbox" : "live",
    page: String(page),
    limit: "20",
  });
  const list = useLoad(
    () => auth.get<ListPage<ApiKey>>(`/api-key/page?${query.toString()}`),
    query.toString(),
  );
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(
    undefined,
  );
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    const r = await auth.post<ApiKey>("/api-key/create", {
      organizationId: organization.id,
      name,
      ...(sandbox ? { prefix: SANDBOX_PREFIX } : {}),
    });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    form.reset();
    setSaid({
      tone: "success",
      text: `Copy it now, it is not shown again: ${r.data.key ?? ""}`,
    });
    list.reload();
  }
  async function revoke(id: string) {
    const r = await auth.post<unknown>("/api-key/delete", { keyId: id });
    setSaid(
      r.ok
        ? { tone: "success", text: "Revoked." }
        : { tone: "error", text: r.error.message },
    );
    list.reload();
  }
  return (
    <Layout title="API keys">
      <p className="hint">
        {sandbox
          ? "Sandbox keys (till_test_…) act on the sandbox only."
          : "Live keys (till_live_…) act on live data."}
      </p>
      <Loading loading={list.loading} error={list.error} />
      <Status tone={said?.tone}>{said?.text}</Status>
      {list.data && (
        <>
          <KeysTable
            keys={list.data.items}
            sandbox={sandbox}
            revoke={mayManage ? revoke : undefined}
          />
          <Pager
            page={page}
            maxPage={list.data.pagination.max_page}
            total={list.data.pagination.total_count}
          />
        </>
      )}
      {mayManage && (
        <NewKeyForm sandbox={sandbox} onSubmit={(e) => void onSubmit(e)} />
      )}
    </Layout>
  );
}

/** A page of the side's keys; with `revoke` (the owner's and admins'), a button to revoke each. */
function KeysTable({
  keys,
  sandbox,
  revoke,
}: {
  keys: ApiKey[];
  sandbox: boolean;
  revoke: ((id: string) => Promise<void>) | undefined;
}) {
  return (
    <Table
      caption="API keys"
      rows={keys}
      empty={`No ${sandbox ? "sandbox" : "live"} API keys.`}
      columns={[
        { label: "Name", cell: (k) => k.name ?? "unnamed" },
        {
          label: "Starts with",
          cell: (k) => <code>{k.start ? `${k.start}…` : k.id}</code>,
        },
        {
          label: "Expires",
          cell: (k) =>
            !k.enabled
              ? "disabled"
              : k.expiresAt
                ? day(k.expiresAt)
                : "never",
        },
        ...(revoke
          ? [
              {
                label: "Revoke",
                cell: (k: ApiKey) => (
                  <button
                    type="button"
                    className="link"
                    aria-label={`Revoke ${k.name ?? k.id}`}
                    onClick={() => void revoke(k.id)}
                  >
                    Revoke
                  </button>
                ),
              },
            ]
          : []),
      ]}
    />
  );
}

/** Making a key of the side shown: its name; every billing scope. */
function NewKeyForm({
  sandbox,
  onSubmit,
}: {
  sandbox: boolean;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
}) {
  return (
    <section aria-labelledby="new-key-h">
      <h2 id="new-key-h">New {sandbox ? "sandbox" : "live"} key</h2>
      <form
        onSubmit={onSubmit}
        aria-label="New API key"
        className="stack"
      >
        <Field
          label="Name"
          name="name"
          required
          maxLength={64}
          hint="Every billing scope; narrower keys: till keys create --scope."
        />
        <button type="submit" className="primary">
          Create the key
        </button>
      </form>
    </section>
  );
}
