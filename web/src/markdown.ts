import MarkdownIt from 'markdown-it';

// Raw HTML in model output is shown as text, never injected; markdown-it also refuses
// javascript:, vbscript: and file: links.
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('target', '_blank');
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

// Each code block gets a copy button; the conversation handles its clicks.
const defaultFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) =>
  `<div class="code-block"><button type="button" class="copy-code" data-copy-code>Copy</button>${defaultFence(tokens, idx, options, env, self)}</div>`;

export const renderMarkdown = (text: string): string => md.render(text);
