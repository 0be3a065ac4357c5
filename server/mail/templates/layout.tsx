// The frame of every customer email: the seller's logo and name on top, the message, and a footer that says
// who sent it and where the customer manages their purchases.
import type { ReactNode } from "react";
import { Body } from "@react-email/body";
import { Button } from "@react-email/button";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Img } from "@react-email/img";
import { Link } from "@react-email/link";
import { Preview } from "@react-email/preview";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import type { MailContext } from "./data.js";

const body = { backgroundColor: "#f6f7f9", fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", color: "#1f2328" };
const card = { backgroundColor: "#ffffff", borderRadius: "8px", margin: "24px auto", padding: "24px 32px", maxWidth: "560px" };
const muted = { color: "#656d76", fontSize: "13px", lineHeight: "20px" };

export function Layout(props: { ctx: MailContext; preview: string; children: ReactNode }) {
  const { sender } = props.ctx;
  return (
    <Html lang={props.ctx.i18n.intlLocale}>
      <Head />
      <Preview>{props.preview}</Preview>
      <Body style={body}>
        <Container style={card}>
          <Section>
            {sender.logo ? <Img src={sender.logo} alt={sender.name} width="40" height="40" style={{ borderRadius: "6px" }} /> : null}
            <Text style={{ fontSize: "18px", fontWeight: 600, margin: "8px 0 0" }}>{sender.name}</Text>
          </Section>
          {props.children}
          <Hr style={{ borderColor: "#d0d7de", margin: "24px 0 12px" }} />
          <Text style={muted}>{props.ctx.i18n.rich("layout.footer", { sender: sender.name, link: linkTo(props.ctx.portalUrl) })}</Text>
        </Container>
      </Body>
    </Html>
  );
}

/** A message's `<link>…</link>` tag as a link to `href`. */
export const linkTo = (href: string) =>
  function LinkTag(chunks: ReactNode[]) {
    return (
      <Link key={href} href={href}>
        {chunks}
      </Link>
    );
  };

export const heading = { fontSize: "22px", fontWeight: 600, lineHeight: "30px", margin: "20px 0 8px" };
export const paragraph = { fontSize: "15px", lineHeight: "24px", margin: "8px 0" };
export const button = {
  backgroundColor: "#1f2328",
  color: "#ffffff",
  borderRadius: "6px",
  padding: "10px 18px",
  fontSize: "15px",
  fontWeight: 600,
  textDecoration: "none",
  display: "inline-block",
};

/** The button to the customer portal that most emails end with. */
export const PortalButton = ({ ctx, label }: { ctx: MailContext; label: string }) => (
  <Section style={{ margin: "16px 0" }}>
    <Button href={ctx.portalUrl} style={button}>
      {label}
    </Button>
  </Section>
);
