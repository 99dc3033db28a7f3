// The branded frame around every message: logo header, content, footer with organisation name,
// support URL and postal address (CAN-SPAM), and the unsubscribe link for opt-in mail.
import type { Brand } from '../brands/brands.ts';
import type { RenderedContent } from '../templates/template-schema.ts';
import { blockHtml, blockText } from './blocks.ts';
import { escapeAttr, escapeText } from './escape.ts';

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

interface Shell {
  /** After <title>…</title> and the preheader, up to the content rows. */
  top: string;
  /** Between the content rows and the footer's reason line. */
  middle: string;
  supportLink: string;
  bottom: string;
}

// The parts that depend only on the brand are built once per brand, not per message.
const shells = new WeakMap<Brand, Shell>();

function shellOf(brand: Brand): Shell {
  let shell = shells.get(brand);
  if (!shell) {
    const bg = brand.backgroundColor;
    shell = {
      top:
        `<table role="presentation" width="100%" border="0" cellpadding="0" cellspacing="0" bgcolor="${bg}" style="background:${bg};">` +
        `<tr><td align="center" style="padding:24px 12px;">` +
        `<table role="presentation" width="600" border="0" cellpadding="0" cellspacing="0" style="width:100%;max-width:600px;">` +
        `<tr><td style="padding:0 0 16px 0;"><img src="${escapeAttr(brand.logoUrl)}" alt="${escapeAttr(brand.name)}" height="40" style="display:block;height:40px;border:0;outline:none;${FONT}font-size:20px;font-weight:700;color:${brand.primaryColor};"></td></tr>` +
        `<tr><td bgcolor="#FFFFFF" style="background:#FFFFFF;border-radius:8px;border-top:4px solid ${brand.primaryColor};padding:32px 32px 16px 32px;">` +
        `<table role="presentation" width="100%" border="0" cellpadding="0" cellspacing="0">`,
      middle: `</table></td></tr><tr><td style="${FONT}padding:20px 8px;font-size:12px;line-height:18px;color:#6B7280;text-align:center;">`,
      supportLink: `<a href="${escapeAttr(brand.supportUrl)}" style="color:#6B7280;text-decoration:underline;">Support</a>`,
      bottom: `<br>${escapeText(brand.name)} &middot; ${escapeText(brand.postalAddress)}</td></tr></table></td></tr></table></body></html>`,
    };
    shells.set(brand, shell);
  }
  return shell;
}

export function layoutHtml(content: RenderedContent, brand: Brand): string {
  const shell = shellOf(brand);
  let links = shell.supportLink;
  if (content.unsubscribe) {
    links += ` &middot; <a href="${escapeAttr(content.unsubscribe.url)}" style="color:#6B7280;text-decoration:underline;">Unsubscribe</a>`;
  }
  let rows = '';
  for (const block of content.blocks) rows += blockHtml(block, brand);
  return (
    `<!DOCTYPE html><html lang="en" xmlns="http://www.w3.org/1999/xhtml"><head>` +
    `<meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="x-apple-disable-message-reformatting">` +
    `<meta name="color-scheme" content="light"><title>${escapeText(content.subject)}</title></head>` +
    `<body style="margin:0;padding:0;background:${brand.backgroundColor};">` +
    // Preheader: the inbox preview line, invisible in the opened message.
    `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">${escapeText(content.preheader)}</div>` +
    shell.top +
    rows +
    shell.middle +
    `${escapeText(content.reason)}<br>${links}` +
    shell.bottom
  );
}

export function layoutText(content: RenderedContent, brand: Brand): string {
  // Concatenated piece by piece (D40): joining arrays copied every part of the text once more.
  let out = '';
  const blocks = content.blocks;
  for (let i = 0; i < blocks.length; i++) out += i === 0 ? blockText(blocks[i]!) : `\n\n${blockText(blocks[i]!)}`;
  out += `\n\n--\n${content.reason}`;
  if (content.unsubscribe) out += `\nUnsubscribe: ${content.unsubscribe.url}`;
  return `${out}\nSupport: ${brand.supportUrl}\n${brand.name}, ${brand.postalAddress}\n`;
}
