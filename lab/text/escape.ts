/** Escaping for data that reaches HTML, Markdown and XML outputs. */

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

// ANSI colour/cursor sequences from probe output, then any other control character but tab/newline.
// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Drop ANSI escape sequences and make other control characters visible as U+FFFD. */
export function cleanText(text: string): string {
  return text.replace(ANSI_SEQUENCE, '').replace(CONTROL, '\uFFFD');
}

/** Escape text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return cleanText(text).replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}

/**
 * Escape text for inline GitHub-flavoured Markdown, tables included: HTML and emphasis, code,
 * link and table syntax are neutralised; newlines become spaces. Callers never start a line with data.
 */
export function escapeMarkdown(text: string): string {
  return cleanText(text)
    .replace(/\s+/g, ' ')
    .replace(/[&<>]/g, (ch) => HTML_ENTITIES[ch] ?? ch)
    .replace(/[\\`*_[\]|~]/g, '\\$&');
}

// Characters XML 1.0 forbids (control characters such as ESC from coloured probe output).
// eslint-disable-next-line no-control-regex
const XML_ILLEGAL = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Make text storable in XML: illegal characters become U+FFFD, `]]>` cannot close a CDATA section. */
export function xmlSafe(text: string): string {
  return cleanText(text).replace(XML_ILLEGAL, '\uFFFD').replaceAll(']]>', ']] >');
}

/** Shorten text to at most `max` characters, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

// http(s) URLs inside free text (profile reasons carry upstream links); stops before quotes,
// brackets, pipes and trailing punctuation so the surrounding syntax stays intact.
const URL_IN_TEXT = /https?:\/\/[^\s<>"'()[\]|`]+[^\s<>"'()[\]|`.,;:!?]/g;

/** Split text into literal and URL pieces, in order. */
function splitUrls(text: string): { text: string; url: boolean }[] {
  const pieces: { text: string; url: boolean }[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    pieces.push({ text: text.slice(last, match.index), url: false });
    pieces.push({ text: match[0], url: true });
    last = match.index + match[0].length;
  }
  pieces.push({ text: text.slice(last), url: false });
  return pieces.filter((p) => p.text !== '');
}

/** escapeHtml, with http(s) URLs turned into links. */
export function linkifyHtml(text: string): string {
  return splitUrls(text)
    .map((p) =>
      p.url ? `<a href="${escapeHtml(p.text)}">${escapeHtml(p.text)}</a>` : escapeHtml(p.text),
    )
    .join('');
}

/** escapeMarkdown, with http(s) URLs turned into links. */
export function linkifyMarkdown(text: string): string {
  return splitUrls(text.replace(/\s+/g, ' '))
    .map((p) => (p.url ? `[${escapeMarkdown(p.text)}](${p.text})` : escapeMarkdown(p.text)))
    .join('');
}
